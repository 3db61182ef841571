// Package machine holds the "machine" object of a hopbench report: the
// constants package probe measures (one-way wake-ups, loopback legs) with
// the environment that explains them, as plain data. It is apart from
// probe so that the analysis and the reporters read a machine without
// linking the code that measures one; it imports only the statistics leaf.
package machine

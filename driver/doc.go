// Package driver builds hopbench's topology — a responder, relays in front of
// it, socat and HAProxy when installed — as separate OS processes, runs the
// load client over every path in interleaved rounds, and explains what each
// hop adds: paired differences against the direct path, per-hop slopes of
// relay chains, thread and service-time sweeps.
//
// It measures nothing itself: every figure comes from a pingpong process, so
// the driver's own scheduling never sits on a measured path.
package driver

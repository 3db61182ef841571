// Package event holds what the driver tells of a run as it goes: the
// probe, each round begun and ended, skips, the rounds' sizing, the traced
// rounds and connect-only series, warnings, a sweep's runs, a resolution's
// attempts and hopbench galera's steps, each a typed value with its
// figures. The driver hands them to a Sink; package present says them to
// a person (present.Progress), so that the driver composes no words.
//
// It sits below both: it imports the analysis's data types (results/hop)
// and probe/machine only, so that present renders the driver's events
// without importing the driver.
package event

// Package event holds what the driver tells of a run as it goes: the
// probe, each round begun and ended, skips, the rounds' sizing, the traced
// rounds and connect-only series, warnings, a sweep's runs, a resolution's
// attempts and hopbench galera's steps, and the steps of the hosts
// (package hosts) and of the Galera nodes (package cluster) passed on,
// each a typed value with its figures. The driver hands them to a Sink;
// package present says them to a person (present.Progress), so that
// neither the driver nor the libraries it calls compose words.
//
// It sits below both: it imports the analysis's data types (results/hop),
// probe/machine, and the step types of hosts and cluster only, so that
// present renders the driver's events without importing the driver.
package event

// Package machineline says the machine in one line, as every hopbench
// output opens with it: the virtualisation and idle states, the one-way
// wake-ups and loopback legs the probe measured, steal. The text
// reports, the progress lines (package present) and report.html (package
// present/page) all print this one line.
//
// It imports probe/machine only, so that present and its page both use it.
package machineline

// Package usage holds what hoplat's four commands share in their --help and
// --version: the help that fits a screen (the synopses, the options people
// reach for first and the examples) with every other option in named
// groups behind --help all, one option a line within Width columns; the
// answer to a mistyped option (the nearest one the command takes, found by
// internal/spell); and the version a build links in. It is cmd/'s own (only cmd/ imports pflag) and
// imports pflag, the standard library and internal plumbing alone.
package usage

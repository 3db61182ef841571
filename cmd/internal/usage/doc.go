// Package usage holds what hoplat's four commands share in their --help and
// --version: the help laid out in groups of options, one option a line
// within Width columns, examples at the end, and the version a build links
// in. It is cmd/'s own (only cmd/ imports pflag) and imports pflag and the
// standard library alone.
package usage

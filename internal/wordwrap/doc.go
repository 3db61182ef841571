// Package wordwrap breaks text into lines at its blanks, for everything
// hoplat prints to a terminal: a command's help (cmd/internal/usage),
// hopbench's progress messages and the text report (both present). One
// rule for all three, so that they cannot drift apart.
//
// It is plumbing and imports only the standard library.
package wordwrap

// Package spell finds the name someone meant from the one they typed: the
// distance in edits between two words, and the nearest of a list of names.
// hoplat's commands answer a mistyped option, subcommand or preset with it
// (cmd/internal/usage, cmd/hopbench), and the topology file a mistyped key.
// One measure for all, so that their answers cannot drift apart.
//
// It is plumbing and imports only the standard library.
package spell

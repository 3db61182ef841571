// Package cli holds what hoplat's commands share at their edge: how an error
// becomes one message on stderr and an exit status — 2 for flag values that
// make no sense, 128+N when signal N stopped the command (130 for SIGINT,
// 143 for SIGTERM), 1 for everything else — so that scripts can tell them
// apart the same way for every binary; and the checks of flag values that
// several commands take (CPU lists, output paths).
//
// It is plumbing and imports only the standard library.
package cli

// Package cli holds what hoplat's commands share at their edge: how an error
// becomes one message on stderr and an exit status — 2 for flag values that
// make no sense, 128+N when signal N stopped the command (130 for SIGINT,
// 143 for SIGTERM), 1 for everything else — so that scripts can tell them
// apart the same way for every binary; the message for a bad value, which
// names the flag and the value typed once (BadValue, with a hint for an
// address that lacks its type); and the checks of flag values that several
// commands take (output paths).
//
// It is plumbing and imports only the standard library.
package cli

// Package cli holds what hoplat's commands share at their edge: how an error
// becomes one message on stderr and an exit status — 2 for flag values that
// make no sense, 128+N when signal N stopped the command (130 for SIGINT,
// 143 for SIGTERM), 1 for everything else — so that scripts can tell them
// apart the same way for every binary; the message for a bad value, which
// names the flag and the value typed once (BadValue, with a hint for an
// address that lacks its type); and the checks of flag values that several
// commands take (output paths).
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ExitUsage is the status for flag values or arguments that make no sense.
const ExitUsage = 2

type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// Usage marks err as a usage error: bad flag values or arguments.
func Usage(err error) error { return usageError{err} }

// IsUsage reports whether err, or an error it wraps, came from Usage.
func IsUsage(err error) bool {
	var ue usageError
	return errors.As(err, &ue)
}

// Exit returns when err is nil; otherwise it prints err once, prefixed with
// the command's name (once, however many layers prefixed it), and exits
// with the status exitStatus gives.
func Exit(cmd string, err error) {
	if err == nil {
		return
	}
	os.Exit(report(os.Stderr, cmd, err))
}

// report writes the message and returns the exit status.
func report(w io.Writer, cmd string, err error) int {
	msg := err.Error()
	for strings.HasPrefix(msg, cmd+": ") {
		msg = strings.TrimPrefix(msg, cmd+": ")
	}
	fmt.Fprintln(w, cmd+": "+msg)
	return exitStatus(err)
}

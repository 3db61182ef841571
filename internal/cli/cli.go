// Package cli holds what hoplat's commands share at their edge: how an error
// becomes one message on stderr and an exit status — 2 for flag values that
// make no sense, 1 for everything else — so that scripts can tell the two
// apart the same way for every binary.
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
// the command's name, and exits with ExitUsage or 1.
func Exit(cmd string, err error) {
	if err == nil {
		return
	}
	os.Exit(report(os.Stderr, cmd, err))
}

// report writes the message and returns the exit status.
func report(w io.Writer, cmd string, err error) int {
	msg := err.Error()
	if !strings.HasPrefix(msg, cmd+":") {
		msg = cmd + ": " + msg
	}
	fmt.Fprintln(w, msg)
	if IsUsage(err) {
		return ExitUsage
	}
	return 1
}

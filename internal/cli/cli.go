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

//go:build !linux

package sockets

import (
	"errors"
	"fmt"
)

// ListenerPID returns the process that holds the socket listening on a;
// it reads Linux's /proc and is unsupported elsewhere.
func ListenerPID(a Addr) (int, error) {
	return 0, listenerError(a, fmt.Errorf("finding a socket's process: %w", errors.ErrUnsupported))
}

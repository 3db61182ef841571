package responder

import (
	"errors"
	"syscall"
)

// isReset reports a connection the peer reset or closed under a write.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

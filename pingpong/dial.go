package pingpong

import (
	"context"
	"io"

	"github.com/hoplat/hoplat/sockets"
)

// Dialer returns a function that connects to a under model m as the
// workers connect, for protocols that open connections of their own (the
// mysql package's connect-only events). A blocking or spin connection must
// be used from the goroutine that dialled it.
func Dialer(a sockets.Addr, m IOModel) func(context.Context) (io.ReadWriteCloser, error) {
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		c, err := dial(ctx, a, m)
		if err != nil {
			return nil, err // not a nil conn inside a non-nil interface
		}
		return c, nil
	}
}

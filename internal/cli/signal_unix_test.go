//go:build unix

package cli

import (
	"context"
	"errors"
	"syscall"
	"testing"
)

// A real SIGTERM and SIGINT, sent to this process, cancel the context with
// the signal as the cause and map to 143 and 130.
func TestSignalContext(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		ctx, stop := SignalContext(context.Background())
		if err := syscall.Kill(syscall.Getpid(), tc.sig); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		cause := context.Cause(ctx)
		var in Interrupted
		if !errors.As(cause, &in) || in.Signal != tc.sig {
			t.Errorf("%v: cause %v, want Interrupted{%v}", tc.sig, cause, tc.sig)
		}
		if code := exitStatus(cause); code != tc.code {
			t.Errorf("%v: exit status %d, want %d", tc.sig, code, tc.code)
		}
		stop()
		stop() // idempotent
	}
	// Stopped without a signal: cancelled, not interrupted.
	ctx, stop := SignalContext(context.Background())
	stop()
	if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) || exitStatus(cause) != 1 {
		t.Errorf("after stop: cause %v", cause)
	}
}

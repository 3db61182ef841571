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

// Hurried, the first signal cancels the context and a second one, while
// the command finishes, is handed to hurry; each is named as kill(1) names
// it.
func TestSignalContextHurried(t *testing.T) {
	hurried := make(chan Interrupted, 1)
	ctx, stop := SignalContextHurried(context.Background(), func(in Interrupted) { hurried <- in })
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	var in Interrupted
	if !errors.As(context.Cause(ctx), &in) || in.SignalName() != "SIGINT" {
		t.Fatalf("first: cause %v", context.Cause(ctx))
	}
	select {
	case in := <-hurried:
		t.Fatalf("hurried by the first signal alone: %v", in)
	default:
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if in := <-hurried; in.SignalName() != "SIGTERM" {
		t.Errorf("second: %v named %q, want SIGTERM", in, in.SignalName())
	}
}

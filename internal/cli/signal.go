package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Interrupted is the cause of a SignalContext's cancellation: the signal
// that stopped the command. Exit turns it into status 128+signal, as a
// shell reports a command killed by that signal (bash(1), EXIT STATUS):
// 130 for SIGINT, 143 for SIGTERM.
type Interrupted struct{ Signal syscall.Signal }

func (e Interrupted) Error() string { return fmt.Sprintf("interrupted (%v)", e.Signal) }

// SignalName is the signal's name as kill(1) and signal(7) write it:
// SIGINT, SIGTERM.
func (e Interrupted) SignalName() string {
	switch e.Signal {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return fmt.Sprintf("signal %d (%v)", int(e.Signal), e.Signal)
}

// SignalContext returns a context cancelled by the first SIGINT or SIGTERM,
// with an Interrupted cause that context.Cause returns. stop releases the
// signals (a second one then gets the default action) and the context.
func SignalContext(parent context.Context) (ctx context.Context, stop func()) {
	return signalContext(parent, nil)
}

// SignalContextHurried is SignalContext for a command that still has work
// to do once interrupted (hopbench: stopping its components, then the
// report of the rounds it measured): the first SIGINT or SIGTERM cancels
// ctx, and a second, while that work runs, calls hurry with it. hurry is
// to stop at once: it prints what it left undone and exits, with status
// 128+signal as Exit would give.
func SignalContextHurried(parent context.Context, hurry func(Interrupted)) (ctx context.Context, stop func()) {
	return signalContext(parent, hurry)
}

func signalContext(parent context.Context, hurry func(Interrupted)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			cancel(Interrupted{Signal: sig})
		case <-done:
			return
		case <-ctx.Done():
			return
		}
		if hurry == nil {
			return
		}
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			hurry(Interrupted{Signal: sig})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			wg.Wait()
			cancel(context.Canceled)
		})
	}
}

// exitStatus is the status for err: 128+signal for Interrupted, ExitUsage
// for a usage error, else 1.
func exitStatus(err error) int {
	var in Interrupted
	switch {
	case errors.As(err, &in) && in.Signal > 0:
		return 128 + int(in.Signal)
	case IsUsage(err):
		return ExitUsage
	}
	return 1
}

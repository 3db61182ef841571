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

func (e Interrupted) Error() string { return "interrupted by " + SignalName(e.Signal) }

// SignalName is a signal's name as kill(1) and the shell's trap print it,
// SIGINT rather than Go's "interrupt"; signals without a name here fall
// back to Go's description.
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	}
	return fmt.Sprintf("signal %d (%v)", int(s), s)
}

// SignalName is the signal's name as kill(1) writes it: SIGINT, SIGTERM.
func (e Interrupted) SignalName() string { return SignalName(e.Signal) }

// SignalContext returns a context cancelled by the first SIGINT or SIGTERM,
// with an Interrupted cause that context.Cause returns. stop releases the
// signals (a second one then gets the default action) and the context.
// Until stop, a second signal is swallowed: the command's own clean-up
// (processes, namespaces) runs to its end.
func SignalContext(parent context.Context) (ctx context.Context, stop func()) {
	return signalContext(parent, nil, nil)
}

// SignalContextForce is SignalContext for a command whose work after the
// first signal (a report of what it measured) may be skipped: at the first
// SIGINT or SIGTERM it restores both signals' default action, then calls
// first (to say so, say) and cancels the context, so that a second signal
// ends the process at once, killed by that signal as the shell expects
// (128+N).
func SignalContextForce(parent context.Context, first func(Interrupted)) (ctx context.Context, stop func()) {
	if first == nil {
		first = func(Interrupted) {}
	}
	return signalContext(parent, first, nil)
}

// SignalContextHurried is SignalContext for a command that still has work
// to do once interrupted (hopbench: stopping its components, then the
// report of the rounds it measured): the first SIGINT or SIGTERM cancels
// ctx, and a second, while that work runs, calls hurry with it. hurry is
// to stop at once: it prints what it left undone and exits, with status
// 128+signal as Exit would give.
func SignalContextHurried(parent context.Context, hurry func(Interrupted)) (ctx context.Context, stop func()) {
	return signalContext(parent, nil, hurry)
}

func signalContext(parent context.Context, first, hurry func(Interrupted)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			if first != nil {
				// Reset before first: a caller that sees first's
				// effect may count on the second signal's default.
				signal.Reset(syscall.SIGINT, syscall.SIGTERM)
				first(Interrupted{Signal: sig})
			}
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
	})
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

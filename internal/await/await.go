package await

import (
	"context"
	"errors"
	"os"
	"time"
)

// ErrExited is Poll's error when the process it waits on exits first.
var ErrExited = errors.New("await: process exited")

// Poll calls ready until it returns true, first at once, then after a pause
// that starts at 1 ms and doubles up to most: short enough that a condition
// met within a millisecond costs about that, long enough that a slow one
// costs few checks. It returns nil once ready does, ErrExited once exited is
// closed (a nil channel never is), and ctx's error once ctx ends; ready is
// called again neither after exited nor after ctx's end.
func Poll(ctx context.Context, exited <-chan struct{}, most time.Duration, ready func() bool) error {
	pause := time.Millisecond
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for {
		if ready() {
			return nil
		}
		timer.Reset(pause)
		select {
		case <-timer.C:
		case <-exited:
			return ErrExited
		case <-ctx.Done():
			return ctx.Err()
		}
		pause = min(2*pause, most)
	}
}

// File waits for path to exist, as Poll waits for ready, checking at most
// every 20 ms. A writer that renames a finished file into place (as
// hoprelay writes its --stats) makes its appearance mean it is complete.
func File(ctx context.Context, path string, exited <-chan struct{}) error {
	return Poll(ctx, exited, 20*time.Millisecond, func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

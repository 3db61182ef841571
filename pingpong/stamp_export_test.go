package pingpong

import (
	"context"
	"testing"
)

// StampedAllocs connects one worker as Run does, with receive stamps on,
// and returns testing.AllocsPerRun of one closed-loop round trip through
// its hot path (the stamped read and its record included), with the
// responses it stamped and those it found unstamped.
func StampedAllocs(ctx context.Context, cfg Config, runs int) (allocs float64, stamped, unstamped int64, err error) {
	cfg.RXStamps = true
	cfg, err = cfg.withDefaults()
	if err != nil {
		return 0, 0, 0, err
	}
	s := &step{cfg: cfg, threads: 1, start: make(chan struct{})}
	w := newWorker(s, 0, false)
	_, unlock, err := pinned(cfg.IO, cfg.CPUs, 0)
	defer unlock()
	if err != nil {
		return 0, 0, 0, err
	}
	if err := w.dial(ctx); err != nil {
		return 0, 0, 0, err
	}
	defer w.close()
	failed := false
	allocs = testing.AllocsPerRun(runs, func() {
		if w.closed() < 0 {
			failed = true
		}
	})
	if failed {
		return 0, 0, 0, w.firstError()
	}
	return allocs, w.wake.h.Count(), w.wake.unstamped, nil
}

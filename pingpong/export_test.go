package pingpong

import (
	"context"
	"errors"
	"runtime"
)

// RoundTrips connects one worker as Run does and makes n closed-loop round
// trips through its hot path (timing, recording, progress counting),
// returning the heap allocations the whole process made meanwhile (the
// responder included, when it runs in this process) and the worker's p50.
func RoundTrips(ctx context.Context, cfg Config, n int) (allocs uint64, p50 int64, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return 0, 0, err
	}
	s := &step{cfg: cfg, threads: 1, start: make(chan struct{})}
	w := newWorker(s, 0, true)
	_, unlock, err := pinned(cfg.IO, cfg.CPUs, 0)
	defer unlock()
	if err != nil {
		return 0, 0, err
	}
	if err := w.dial(ctx); err != nil {
		return 0, 0, err
	}
	defer w.close()
	// Warm the connection and the runtime's caches first.
	for range 1000 {
		if w.closed() < 0 {
			return 0, 0, w.firstError()
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if w.closed() < 0 {
			return 0, 0, w.firstError()
		}
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs, w.lat.Quantile(50), nil
}

func (w *worker) firstError() error {
	if len(w.samples) > 0 {
		return errors.New(w.samples[0])
	}
	return errors.New("round trip failed")
}

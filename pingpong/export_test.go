package pingpong

import (
	"context"
	"runtime"
	"testing"
)

// SetAutoHeldMax lowers how many connections Auto holds blocking, until
// the test ends.
func SetAutoHeldMax(t testing.TB, n int) {
	old := autoHeldMax
	autoHeldMax = n
	t.Cleanup(func() { autoHeldMax = old })
}

// AutoCounts is how many connections an Auto server holds blocking now
// and how many it has served under each model.
func (s *Server) AutoCounts() (held int, served map[IOModel]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	served = map[IOModel]int{}
	for m, n := range s.served {
		if n > 0 {
			served[IOModel(m)] = n
		}
	}
	return s.held, served
}

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
		return errString(w.samples[0])
	}
	return errString("round trip failed")
}

type errString string

func (e errString) Error() string { return string(e) }

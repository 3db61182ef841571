package pingpong

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/stats"
)

// stallGrace is how long past a step's end the client waits for a worker
// stuck in a round trip before it interrupts the connection.
const stallGrace = 2 * time.Second

// Run runs every step of cfg (one per thread count) and returns what was
// measured. It fails when a worker cannot connect at the start of a step
// (the target is unreachable or refuses): that is a set-up error, not a
// figure. Errors after that (a peer closing mid-run, a bad reply) are
// counted, the connection re-established, and the run goes on.
//
// When ctx ends before the last run does, Run returns ctx's error and the
// report of what was measured until then, marked Partial: the runs that
// ended whole, then the run in progress with the time it did run, marked
// Partial too; runs and thread counts not yet started are left out.
// PartialReason is ctx's cause (a signal, say) and how much of the planned
// measuring time had passed.
func Run(ctx context.Context, cfg Config) (report.Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return report.Report{}, err
	}
	rep := report.Report{Schema: report.SchemaPingpong, Config: cfg.printed(), Env: affinity.CollectEnv()}
	for _, n := range cfg.Threads {
		s, cpus, err := runStep(ctx, cfg, n)
		if len(s.Runs) > 0 {
			rep.Steps = append(rep.Steps, s)
		}
		if err != nil {
			if ctx.Err() != nil {
				rep.Partial, rep.Stop = true, cfg.stop(context.Cause(ctx), rep.Steps)
			}
			return rep, err
		}
		for w, cpu := range cpus {
			if cpu >= 0 {
				if rep.Env.Pinning == nil {
					rep.Env.Pinning = map[string]string{}
				}
				rep.Env.Pinning["pingpong/"+strconv.Itoa(w)] = strconv.Itoa(cpu)
			}
		}
	}
	return rep, nil
}

// stop is what stopped a run early and when: the time measured
// (warm-ups left out) against the time every run of every thread count
// would have taken.
func (c Config) stop(cause error, steps []report.Step) *report.Stop {
	var ran time.Duration
	for _, s := range steps {
		for _, r := range s.Runs {
			ran += r.Elapsed
		}
	}
	return &report.Stop{Cause: cause, Ran: ran, Planned: time.Duration(len(c.Threads)*c.Runs) * c.Time}
}

// step is one thread count's series of runs, shared by its workers.
type step struct {
	cfg     Config
	threads int
	// t0 is the clock at which warm-up starts; written before start is
	// closed, read-only after.
	t0       int64
	start    chan struct{}
	stopped  atomic.Bool // past the end (plus grace) or cancelled
	stalled  atomic.Bool // stopped because a reply was still missing after the grace
	interval int64       // open loop: each worker's send interval in ns

	mu   sync.Mutex
	runs []report.Run

	progHist *stats.Histogram // the progress lines' merge, owned by runStep's goroutine
}

// end is the clock at which phase p ends; phase -1 is the warm-up.
func (s *step) end(p int) int64 {
	return s.t0 + int64(s.cfg.Warmup) + int64(p+1)*int64(s.cfg.Time)
}

func runStep(ctx context.Context, cfg Config, threads int) (report.Step, []int, error) {
	s := &step{cfg: cfg, threads: threads, start: make(chan struct{})}
	if cfg.Rate > 0 {
		s.interval = int64(float64(threads) * 1e9 / cfg.Rate)
		if s.interval < 1 {
			s.interval = 1
		}
	}
	s.runs = make([]report.Run, cfg.Runs)
	for i := range s.runs {
		r := &s.runs[i]
		r.Index = i
		r.Elapsed = cfg.Time
		r.Latency = stats.NewHistogram()
		r.Connect = stats.NewHistogram()
		r.Events = make([]int64, threads)
		if s.interval > 0 {
			r.Corrected = stats.NewHistogram()
		}
		if cfg.RXStamps {
			r.Wake = stats.NewHistogram()
		}
	}
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := make([]*worker, threads)
	ready := make(chan error, threads)
	var wg sync.WaitGroup
	for i := range workers {
		workers[i] = newWorker(s, i, cfg.ReportInterval > 0 && cfg.Progress != nil)
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.run(dctx, ready)
		}(workers[i])
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	stop := func() {
		s.stopped.Store(true)
		cancel()
		for _, w := range workers {
			w.interrupt()
		}
		<-done
	}

	var first error
	for range workers {
		if err := <-ready; err != nil && first == nil {
			first = err
		}
	}
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	if first != nil {
		stop()
		return report.Step{}, nil, first
	}
	s.t0 = now()
	close(s.start)

	var prog *time.Ticker
	var progC <-chan time.Time
	if cfg.ReportInterval > 0 && cfg.Progress != nil {
		prog = time.NewTicker(cfg.ReportInterval)
		defer prog.Stop()
		progC = prog.C
	}
	deadline := time.NewTimer(time.Duration(s.end(cfg.Runs-1)-now()) + stallGrace)
	defer deadline.Stop()
	last := s.t0
wait:
	for {
		select {
		case <-done:
			break wait
		case <-progC:
			t := now()
			cfg.Progress(s.progress(workers, t-s.t0, t-last))
			last = t
		case <-deadline.C:
			s.stalled.Store(true)
			stop()
			break wait
		case <-ctx.Done():
			at := now()
			stop()
			return report.Step{Threads: threads, Discard: cfg.Discard, Runs: s.cut(at)}, s.cpus(workers), ctx.Err()
		}
	}
	return report.Step{Threads: threads, Discard: cfg.Discard, Runs: s.runs}, s.cpus(workers), nil
}

// cpus is the CPU each worker was pinned to, -1 where none.
func (s *step) cpus(workers []*worker) []int {
	cpus := make([]int, len(workers))
	for i, w := range workers {
		cpus[i] = w.cpu
	}
	return cpus
}

// cut is the step's runs as a stop at clock at leaves them, once every
// worker has flushed what it had (the workers flush the phase they are in
// when stopped): the runs that had ended, then the one in progress with
// the time it ran and marked Partial. None while warming up.
func (s *step) cut(at int64) []report.Run {
	start := s.end(-1) // the first run's
	if at < start {
		return nil
	}
	p := min(int((at-start)/int64(s.cfg.Time)), len(s.runs)-1)
	if runEnd := s.end(p); at < runEnd {
		r := &s.runs[p]
		r.Elapsed = time.Duration(at - s.end(p-1))
		r.Partial = true
	}
	return s.runs[:p+1]
}

// progress gathers and resets every worker's interval counts.
func (s *step) progress(workers []*worker, at, interval int64) report.Progress {
	if s.progHist == nil {
		s.progHist = stats.NewHistogram()
	}
	h := s.progHist
	h.Reset()
	p := report.Progress{At: time.Duration(at).Round(time.Millisecond), Threads: s.threads, Interval: time.Duration(interval)}
	for _, w := range workers {
		w.prog.mu.Lock()
		h.Merge(w.prog.lat)
		w.prog.lat.Reset()
		p.Events += w.prog.events
		p.Queries += w.prog.queries
		p.Errors += w.prog.errors
		p.Reconnects += w.prog.reconnects
		w.prog.events, w.prog.queries, w.prog.errors, w.prog.reconnects = 0, 0, 0, 0
		w.prog.mu.Unlock()
	}
	p.P95 = float64(h.Quantile(95)) / 1e3
	return p
}

// ConnectError is a worker's failure to connect to the target (dial or
// log in); at the start of a step it ends the run.
type ConnectError struct {
	Worker int
	Err    error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("pingpong: worker %d: connect: %v", e.Worker, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// connectError names the worker.
func connectError(i int, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return &ConnectError{Worker: i, Err: err}
}

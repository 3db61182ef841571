package attach

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/tracer"
)

// Config says what to attach to. Exactly one of PID and Comm is set.
type Config struct {
	PID  int    // one process (its threads, and the children it forks from now on)
	Comm string // every process of this name (as /proc/PID/comm says)
	// Window is how long the tracer records before its records are read
	// and analysed; a chunk cut by a window's end is lost. 0 means 1 s.
	Window time.Duration
	// Duty is the share of the time the hooks are attached, in (0, 1]:
	// after each window they stay detached for Window×(1/Duty − 1), and
	// the proxy pays the tracer's cost per event only while attached.
	// The chunks are then a sample of the traffic, its windows spread
	// over the session. 0 means 1: every chunk.
	Duty float64
	// BufferBytes is the tracer's record buffer (tracer.Config); it must
	// hold one window's records. 0 means the tracer's default.
	BufferBytes int
	// OnChunk, if set, is called for every chunk as its window is
	// analysed, from Run's goroutine.
	OnChunk func(Chunk)
}

// Session is one attachment: the tracer following the target, and the
// chunks summed so far. Its methods are for one goroutine.
type Session struct {
	cfg        Config
	tr         *tracer.Tracer
	perEvent   time.Duration
	pids       []int
	followed   map[int]bool
	listening  map[uint16]bool // the target's listening ports
	anyListen  map[uint16]bool // every listening port of its network namespace
	sockmap    bool
	unixListen bool   // a followed process listens on a UNIX socket
	recvs      uint64 // the followed tasks' receives seen (KindRecv)
	sends      uint64 // and sends (KindSend)
	sums       [2]*summary
	own        [2]*summary // the current window's chunks, per direction
	windows    []WindowReport
	dropped    int // windows dropped from the front of windows
	conns      map[uint64]bool
	threads    map[int]bool
	events     uint64
	lost       uint64
	elapsed    time.Duration // in windows, the hooks attached
	began      time.Time     // Run's start: the session's wall time runs from here
	mu         sync.Mutex    // guards sums for Report during Run
}

// Open finds the target, checks it has sockets, loads and calibrates the
// tracer. A missing process or socket is ErrNoProcess or ErrNoSockets; a
// tracer that cannot run here wraps errors.ErrUnsupported (tracer.Open).
func Open(ctx context.Context, cfg Config) (*Session, error) {
	if (cfg.PID == 0) == (cfg.Comm == "") {
		return nil, fmt.Errorf("attach: give a pid or a comm, one of them")
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Second
	}
	switch {
	case cfg.Duty == 0:
		cfg.Duty = 1
	case cfg.Duty < 0 || cfg.Duty > 1:
		return nil, fmt.Errorf("attach: duty %v: want more than 0 and at most 1", cfg.Duty)
	}
	pids, err := findPIDs(cfg.PID, cfg.Comm)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, pids: pids, followed: map[int]bool{}, conns: map[uint64]bool{}, threads: map[int]bool{}}
	s.sums = [2]*summary{newSummary(), newSummary()}
	s.own = [2]*summary{newSummary(), newSummary()}
	sockets := 0
	for _, p := range pids {
		s.followed[p] = true
		sockets += len(readFDs(p).sockets)
	}
	if sockets == 0 {
		return nil, fmt.Errorf("%w: process %s (%s)", ErrNoSockets, joinInts(pids), comm(pids[0]))
	}
	s.refreshPorts()
	components := map[int]string{}
	for _, p := range pids {
		components[p] = "proxy"
	}
	s.tr, err = tracer.Open(tracer.Config{Hooks: tracer.ProxyHooks, Components: components, BufferBytes: cfg.BufferBytes})
	if err != nil {
		return nil, err
	}
	if s.perEvent, err = s.tr.Calibrate(ctx); err != nil {
		s.tr.Close()
		return nil, err
	}
	return s, nil
}

// refreshPorts reads the followed processes' listening ports and whether
// one holds a sockmap.
func (s *Session) refreshPorts() {
	s.listening = map[uint16]bool{}
	s.anyListen = listeningPorts(s.pids[0], nil)
	for p := range s.followed {
		fds := readFDs(p)
		s.sockmap = s.sockmap || fds.sockmap
		s.unixListen = s.unixListen || unixListening(p, fds.sockets)
		for port := range listeningPorts(p, fds.sockets) {
			s.listening[port] = true
		}
	}
}

// accepted tells a socket the proxy accepted by its local port, one the
// proxy listens on; a proxy that has closed its listener (socat without
// fork) by its remote port, which no one here listens on.
func (s *Session) accepted(local, remote uint16) bool {
	if len(s.listening) > 0 {
		return s.listening[local]
	}
	return !s.anyListen[remote]
}

// Run traces in windows until d has passed (0: until ctx is done), each
// followed by its gap with the hooks detached where Config.Duty is
// below 1.
func (s *Session) Run(ctx context.Context, d time.Duration) error {
	begin := time.Now()
	s.mu.Lock()
	if s.began.IsZero() {
		s.began = begin
	}
	s.mu.Unlock()
	left := func(w time.Duration) time.Duration {
		if d > 0 {
			w = min(w, d-time.Since(begin))
		}
		return w
	}
	gap := time.Duration(float64(s.cfg.Window) * (1/s.cfg.Duty - 1))
	for ctx.Err() == nil {
		w := left(s.cfg.Window)
		if w <= 0 {
			break
		}
		if err := s.window(ctx, w); err != nil {
			return err
		}
		if g := left(gap); g > 0 {
			t := time.NewTimer(g)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
	}
	return nil
}

func (s *Session) window(ctx context.Context, d time.Duration) error {
	if err := s.tr.Start(); err != nil {
		return err
	}
	begin := time.Now()
	// The kernel follows the children of followed processes only while
	// the fork hook is attached: those forked before (during Open's
	// calibration, between windows) are found in /proc, now that it is.
	if err := s.adopt(strays(s.followed, s.cfg.Comm)); err != nil {
		s.tr.Stop()
		return err
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	tr, err := s.tr.Stop()
	if err != nil {
		return err
	}
	elapsed := time.Since(begin)
	own := s.own
	own[0].reset()
	own[1].reset()
	w := Analyze(tr.Events, s.accepted, func(c Chunk) {
		own[c.Direction].add(c)
		s.mu.Lock()
		s.sums[c.Direction].add(c)
		if c.Direction == ToUpstream {
			s.conns[c.Inbound] = true // a connection is a socket the proxy accepted
		}
		s.mu.Unlock()
		if s.cfg.OnChunk != nil {
			s.cfg.OnChunk(c)
		}
	})
	var recvs, sends uint64
	for i := range tr.Events {
		switch tr.Events[i].Kind {
		case tracer.KindRecv:
			recvs++
		case tracer.KindSend:
			sends++
		}
	}
	s.mu.Lock()
	s.recvs += recvs
	s.sends += sends
	s.events += uint64(len(tr.Events))
	s.lost += tr.Lost + tr.Dropped
	s.elapsed += elapsed
	wr := WindowReport{Start: begin.UTC(), DurationS: round2(elapsed.Seconds())}
	for d, sum := range own {
		wd := sum.window(Direction(d))
		wr.Chunks += wd.Chunks
		wr.Directions = append(wr.Directions, wd)
	}
	if len(s.windows) == maxWindows {
		s.windows = slices.Delete(s.windows, 0, 1)
		s.dropped++
	}
	s.windows = append(s.windows, wr)
	for _, tid := range w.Threads {
		s.threads[tid] = true
	}
	s.mu.Unlock()
	forked := false
	for _, p := range w.Forks {
		if !s.followed[p] {
			s.followed[p] = true
			s.pids = append(s.pids, p)
			forked = true
		}
	}
	if forked {
		s.refreshPorts()
	}
	return nil
}

// adopt follows processes the kernel does not follow yet.
func (s *Session) adopt(pids []int) error {
	for _, p := range pids {
		if err := s.tr.Follow(p, "proxy"); err != nil {
			return err
		}
		s.mu.Lock()
		s.followed[p] = true
		s.pids = append(s.pids, p)
		s.mu.Unlock()
	}
	if len(pids) > 0 {
		s.refreshPorts()
	}
	return nil
}

// wall is the session's time so far: since Run began, or what the
// windows traced where it has not (never less than that).
func (s *Session) wall() time.Duration {
	if s.began.IsZero() {
		return s.elapsed
	}
	return max(time.Since(s.began), s.elapsed)
}

// PIDs are the processes followed so far.
func (s *Session) PIDs() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pids)
}

// Report sums what the windows so far found.
func (s *Session) Report() *Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Report{
		Schema:         Schema,
		Target:         TargetReport{PIDs: slices.Clone(s.pids), Comm: s.cfg.Comm, Threads: len(s.threads)},
		DurationS:      round2(s.wall().Seconds()),
		Connections:    len(s.conns),
		Windows:        slices.Clone(s.windows),
		WindowsDropped: s.dropped,
		Env:            affinity.CollectEnv(),
	}
	if r.Target.Comm == "" {
		r.Target.Comm = comm(s.pids[0])
	}
	var chunks int64
	var meanSum float64
	for d, sum := range s.sums {
		dr := sum.report(Direction(d))
		r.Directions = append(r.Directions, dr)
		chunks += dr.Chunks
		meanSum += dr.ResidenceUs.Mean * float64(dr.Chunks)
	}
	r.Tracer = TracerReport{Events: s.events, Lost: s.lost, PerEventNs: float64(s.perEvent.Nanoseconds()),
		TracedS: round2(s.elapsed.Seconds()), DutyPct: round2(100 * s.cfg.Duty)}
	if chunks > 0 && meanSum > 0 {
		perChunk := float64(s.events) / float64(chunks)
		r.Tracer.FloorPct = round2(100 * perChunk * r.Tracer.PerEventNs / 1e3 / (meanSum / float64(chunks)))
	}
	switch {
	case chunks == 0 && s.sockmap:
		r.Note = "no user-space residence: the proxy forwards in the kernel (a BPF sockmap), its bytes never reach its own code"
	case chunks == 0 && s.unixListen:
		r.Note = "no chunk: the proxy listens on a UNIX socket, and attach matches bytes by TCP sequence numbers, " +
			"which UNIX sockets have not (it follows TCP only): trace the proxy on a TCP listener"
	case chunks == 0 && s.sends > 0 && s.recvs == 0:
		r.Note = "no chunk: the proxy sent bytes but none of its receives was seen: it reads in the kernel " +
			"(splice's tcp_splice_read, which no hook follows), so its bytes cannot be matched; an engine that " +
			"reads with recv(2) or read(2) can"
	case chunks == 0:
		r.Note = "no chunk crossed the proxy: no traffic, or bytes it does not forward as they came (TCP only)"
	case r.Directions[ToUpstream].Chunks == 0 || r.Directions[ToClient].Chunks == 0:
		r.Note = "one direction has no chunks: is a listening socket of the proxy's own among its fds?"
	}
	return r
}

// Close detaches the tracer and releases it. It is idempotent.
func (s *Session) Close() error {
	if s.tr == nil {
		return nil
	}
	err := s.tr.Close()
	s.tr = nil
	return err
}

package driver

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/stats"
	"github.com/hoplat/hoplat/tracer"
	"github.com/hoplat/hoplat/tracer/split"
)

// tracing is the run's tracer: after a cell's untraced rounds, one more
// round of it runs traced, and the requests the tracer saw explain the
// untraced figures (method "trace"). nil tr means the run falls back to
// the probe's and the stamps' methods, note saying why.
type tracing struct {
	tr        *tracer.Tracer
	note      string
	perEvent  time.Duration
	waterfall tracer.Waterfall
	traced    int // requests added to the waterfall
	// crossIdle and sameCPU are the traced requests' wake-ups, µs: onto
	// another, idle CPU, and onto the waker's own (the probe's check).
	crossIdle, sameCPU []float64
	// floorPct is the hooks' bare dispatch cost on the packed direct
	// path's round trips (measureFloor), nil until measured; floorNote
	// says why it was not.
	floorPct    *float64
	floorNote   string
	floorFailed *hop.FloorFailed // the floor's rounds that failed, where too many did
}

// openTracing opens the tracer for a run, or says why it cannot: no BTF,
// no capability, a topology's hosts (whose processes another kernel or
// namespace runs), or the run asked for none.
func openTracing(ctx context.Context, cfg Config, hosts bool) *tracing {
	switch {
	case !cfg.Trace:
		return &tracing{note: "tracing off (--trace=false)"}
	case hosts:
		return &tracing{note: "not traced on a topology's hosts"}
	}
	// The server's system calls are left out: its time counts whole in
	// endpoints either way, its legs are the direct path's as much as a
	// relay path's, and a Go server makes a handful per request, which
	// the tracer's cost per record would add to every round trip.
	tcfg := tracer.Config{WithoutSyscalls: []string{roles.Server}}
	tr, err := tracer.Open(tcfg)
	if err != nil {
		return &tracing{note: err.Error()}
	}
	t := &tracing{tr: tr}
	if t.perEvent, err = tr.Calibrate(ctx); err != nil {
		tr.Close()
		return &tracing{note: fmt.Sprintf("tracer calibration: %v", err)}
	}
	return t
}

func (t *tracing) info() *hop.TracerInfo {
	if t.tr == nil {
		return &hop.TracerInfo{Note: t.note}
	}
	return &hop.TracerInfo{On: true, PerRecordNs: float64(t.perEvent.Nanoseconds()), FloorPct: t.floorPct, FloorNote: t.floorNote, FloorFailed: t.floorFailed}
}

// floorRounds is how many untraced rounds of each kind, with the floor's
// programs attached and without, measureFloor interleaves.
const floorRounds = 3

// measureFloor measures the tracer's floor (tracer.Floor: its hooks
// returning at once) on one cell's round trips, argv its client: rounds
// with the hooks attached and without, interleaved (the order turning
// round), each kind's median p50 set against the other.
func (t *tracing) measureFloor(ctx context.Context, argv, env []string, cpus affinity.CPUSet) {
	f, err := t.tr.Floor()
	if err != nil {
		t.floorNote = err.Error()
		return
	}
	defer f.Close()
	var plain, hooked []float64
	failed := 0
	round := func(attach bool) error {
		if attach {
			if err := f.Attach(); err != nil {
				return err
			}
			defer f.Detach()
		}
		smp, err := RunClient(ctx, argv, env, cpus)
		switch {
		case err != nil:
			return err
		case smp.Failed != "" || smp.Latency.P50 <= 0:
			// A round a loaded machine stalled (a reply held past its end
			// by a retransmission timeout) says nothing of the hooks: the
			// other rounds of its kind carry the median.
			failed++
		case attach:
			hooked = append(hooked, smp.Latency.P50)
		default:
			plain = append(plain, smp.Latency.P50)
		}
		return nil
	}
	for i := range floorRounds {
		for j := range 2 {
			if err := round((i+j)%2 == 1); err != nil {
				t.floorNote = "tracer floor: " + err.Error()
				return
			}
		}
	}
	if len(plain) < floorRounds-1 || len(hooked) < floorRounds-1 {
		t.floorFailed = &hop.FloorFailed{Failed: failed, Rounds: 2 * floorRounds}
		return
	}
	u, h := stats.Median(plain), stats.Median(hooked)
	pct := 100 * (h - u) / u
	t.floorPct = &pct
}

// sharesOneCPU reports whether placement puts every component on one and
// the same CPU: the packed regime, where the split charges whoever held
// the CPU (tracer.Config.ChargeHolder).
func sharesOneCPU(placement affinity.Placement) bool {
	var first affinity.CPUSet
	for i, c := range components {
		set, ok := placement.For(c)
		if !ok || set.Len() != 1 {
			return false
		}
		if i == 0 {
			first = set
		} else if !set.Equal(first) {
			return false
		}
	}
	return true
}

// addWakes keeps reqs' wake-ups for the probe's check.
func (t *tracing) addWakes(reqs []tracer.Request) {
	for _, w := range tracer.Wakes(reqs) {
		us := float64(w.Latency) / 1e3
		switch {
		case w.Cross && w.Idle:
			t.crossIdle = append(t.crossIdle, us)
		case !w.Cross:
			t.sameCPU = append(t.sameCPU, us)
		}
	}
}

// wakeCheck sets the traced wake-ups beside the probe's constants; nil
// when no traced request was woken.
func (t *tracing) wakeCheck(m *machine.Machine) *hop.WakeCheck {
	if len(t.crossIdle)+len(t.sameCPU) == 0 {
		return nil
	}
	w := &hop.WakeCheck{CrossIdle: spreadOf(t.crossIdle), SameCPU: spreadOf(t.sameCPU)}
	if m != nil {
		w.ProbeCrossUS, w.ProbeSameUS = m.Wake.CrossCPU, m.Wake.SameCPU
		w.ProbeExtraUS = m.Figure("cross-cpu extra").MedianUS
	}
	return w
}

func spreadOf(v []float64) hop.Spread {
	if len(v) == 0 {
		return hop.Spread{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	at := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return hop.Spread{N: len(s), P25: at(0.25), P50: at(0.5), P75: at(0.75)}
}

func (t *tracing) close() error {
	if t == nil || t.tr == nil {
		return nil
	}
	return t.tr.Close()
}

// components are the processes of path p to follow, by role: every relay
// process of it (a chain's hops numbered from the client: relay1, relay2),
// and the server when its process is known here.
func (b *bench) components(topo *Topology, p hop.Path) map[int]string {
	out := map[int]string{}
	procs := topo.relayProcs[p]
	for i, proc := range procs {
		name := roles.Relay
		if len(procs) > 1 {
			name = roles.Relay + strconv.Itoa(len(procs)-i)
		}
		out[proc.PID()] = name
	}
	switch {
	case topo.server != nil:
		out[topo.server.PID()] = roles.Server
	case b.server != nil && b.server.pid != 0:
		out[b.server.pid] = roles.Server
	}
	return out
}

// tracedRound runs one traced round of cell c (argv), with an untraced
// round (besideArgv, half its length) on either side, and summarises what
// the tracer saw of its requests; without a summary it says why.
func (b *bench) tracedRound(ctx context.Context, s *stageRun, c Cell, argv, besideArgv []string) (*hop.Trace, string) {
	f := &follower{tr: b.tracing.tr, comps: b.components(s.topo, c.Path)}
	defer f.unfollowAll()
	if err := f.path(c.Path, s.placement); err != nil {
		return nil, err.Error()
	}
	// The tracer reads its records only when the round ends, but this
	// process still works during it (it follows socat's children and
	// waits on the client): for the traced round it moves to a CPU the
	// path leaves free, when there is one.
	if free := freeCPUs(s.placement); free.Len() > 0 {
		if prev, err := affinity.PinProcess(os.Getpid(), free); err == nil {
			defer affinity.PinProcess(os.Getpid(), prev)
		}
	}
	// Untraced rounds on either side of it, with this process where it
	// is during it, price the tracer's cost like with like
	// (hop.Trace.UntracedP50Us).
	var untraced []float64
	companion := func() {
		if smp, err := RunClient(ctx, besideArgv, s.client.Env(), s.clientCPUs); err == nil && smp.Failed == "" && smp.Latency.P50 > 0 {
			untraced = append(untraced, smp.Latency.P50)
		}
	}
	companion()
	run, err := b.tracedRun(ctx, s, c, argv, f)
	if err != nil {
		return nil, err.Error()
	}
	companion()
	return b.tracing.summarise(run, c, s.placement, untraced)
}

// follower is what a traced round follows: the path's components by PID
// (comps), and the processes it followed, to unfollow when it is done.
type follower struct {
	tr       *tracer.Tracer
	comps    map[int]string
	mu       sync.Mutex
	followed []int
}

func (f *follower) add(pid int) {
	f.mu.Lock()
	f.followed = append(f.followed, pid)
	f.mu.Unlock()
}

func (f *follower) unfollowAll() {
	for _, pid := range f.followed {
		f.tr.Unfollow(pid)
	}
}

// path follows the path's components and, for a sockmap hop, the
// kworkers that carry its bytes.
func (f *follower) path(p hop.Path, placement affinity.Placement) error {
	for pid, name := range f.comps {
		if err := f.tr.Follow(pid, name); err != nil {
			return err
		}
		f.add(pid)
	}
	if p.Relay != hop.Sockmap {
		return nil
	}
	// A sockmap hop's bytes are carried by the kworkers of the CPU that
	// ran the verdict, the sender's (see kworkerRounds): those of every
	// CPU of the path, their time the relay's.
	var cpus []int
	for _, comp := range components {
		if set, ok := placement.For(comp); ok {
			cpus = append(cpus, set.CPUs()...)
		}
	}
	if kw, err := affinity.ReadKworkers(affinity.NewCPUSet(cpus...)); err == nil {
		for _, tid := range kw.PIDs() {
			f.tr.FollowThread(tid, roles.Relay)
		}
	}
	return nil
}

// tracedRun is what the traced pingpong gave: its sample, the tracer's
// records, and the relays' time on CPU over it, hooks included (what
// tracing cost them is this less the untraced rounds' count).
type tracedRun struct {
	smp        hop.Sample
	trace      *tracer.Trace
	relayCPU   time.Duration
	relayCPUOK bool
}

// tracedRun runs the traced pingpong, following the client and, for socat
// and a user's proxy, the children the relay forks.
func (b *bench) tracedRun(ctx context.Context, s *stageRun, c Cell, argv []string, f *follower) (tracedRun, error) {
	if err := f.tr.Start(); err != nil {
		return tracedRun{}, err
	}
	// socat forks a process per connection: its children relay, and are
	// followed as they appear, during the client's warm-up.
	var kids sync.WaitGroup
	stopKids := make(chan struct{})
	cpuBefore := s.topo.relayCPUOf(c.Path)
	smp, err := RunClientWith(ctx, argv, s.client.Env(), s.clientCPUs, func(pid int) error {
		f.add(pid)
		// A user's proxy may run its work in children too (nginx's
		// workers, forked before the round: followed as found).
		if c.Path.Relay == hop.Socat || !slices.Contains(hop.Relays, c.Path.Relay) {
			kids.Go(func() {
				for _, kid := range followChildren(f.tr, f.comps, stopKids, s.cfg.Warmup+100*time.Millisecond) {
					f.add(kid)
				}
			})
		}
		return f.tr.Follow(pid, roles.Client)
	})
	close(stopKids)
	kids.Wait()
	cpuAfter := s.topo.relayCPUOf(c.Path)
	trace, stopErr := f.tr.Stop()
	if err == nil {
		err = stopErr
	}
	if err != nil {
		return tracedRun{}, err
	}
	d, ok := cpuSpent(cpuBefore, cpuAfter)
	return tracedRun{smp: smp, trace: trace, relayCPU: d, relayCPUOK: ok}, nil
}

// summarise is the traced round's figures, its median and p99 requests
// added to the waterfall; without a request it says why.
func (t *tracing) summarise(run tracedRun, c Cell, placement affinity.Placement, untraced []float64) (*hop.Trace, string) {
	trace, smp := run.trace, run.smp
	reqs := trace.Requests()
	if len(reqs) == 0 {
		return nil, fmt.Sprintf("the traced round found no request in %d events", len(trace.Events))
	}
	// The wake-ups are the critical path's; the split, where the
	// components share a CPU, whoever held it.
	t.addWakes(reqs)
	holder := sharesOneCPU(placement)
	if holder {
		trace.Config.ChargeHolder = true
		reqs = trace.Requests()
	}
	// Sorted once by round trip: the median band, the median and the p99
	// request are all read from it.
	byRTT := slices.Clone(reqs)
	slices.SortStableFunc(byRTT, func(a, b tracer.Request) int { return cmp.Compare(a.RTT(), b.RTT()) })
	med, p99 := &byRTT[stats.Rank(len(byRTT), 0.5)], &byRTT[stats.Rank(len(byRTT), 0.99)]
	tr := summariseTrace(reqs, byRTT, trace.Lost, func(tid int) *hop.Task { return taskOf(trace, tid) })
	tr.TracedP50Us = smp.Latency.P50
	if len(untraced) == 2 {
		tr.UntracedP50Us = (untraced[0] + untraced[1]) / 2
	}
	tr.StatementsPerEvent = smp.Statements
	if run.relayCPUOK {
		us := float64(run.relayCPU) / 1e3 / float64(len(reqs))
		tr.SchedstatTracedRelayCPUUs = &us
	}
	// What the records cost the round trip, from the calibrated cost of
	// one: part of the overhead the traced round should show.
	tr.RecordsPerRequest = float64(len(trace.Events)) / float64(len(reqs))
	if tr.UntracedP50Us > 0 {
		tr.RecordsPct = 100 * tr.RecordsPerRequest * float64(t.perEvent.Nanoseconds()) / (1e3 * tr.UntracedP50Us)
	}
	tr.View = hop.ViewCriticalPath
	if holder {
		tr.View = hop.ViewHolder
	}
	if tr.TracedP50Us == 0 {
		// pingpong reported no percentiles (a round cut short): the
		// traced median round trip stands in.
		tr.TracedP50Us = float64(med.RTT()) / 1e3
	}
	label := fmt.Sprintf("%s %s, %d threads", c.Path.Name(), placementName(placement), c.Threads)
	t.waterfall.Add(label+" p50", med)
	t.waterfall.Add(label+" p99", p99)
	t.traced += 2
	return tr, ""
}

// overheadPct is a traced round's p50 against the untraced rounds beside
// it, in percent; ok is false where either is missing.
func overheadPct(tr *hop.Trace) (pct float64, ok bool) {
	if tr == nil || tr.UntracedP50Us <= 0 || tr.TracedP50Us <= 0 {
		return 0, false
	}
	return 100 * (tr.TracedP50Us - tr.UntracedP50Us) / tr.UntracedP50Us, true
}

// outsideBand is how a traced round's overhead is outside its band
// (hop.OverheadBand, read against the run's floor): the traced round did
// not see the untraced rounds' machine. nil inside it, or where there is
// nothing to judge by.
func (t *tracing) outsideBand(tr *hop.Trace) *hop.OutsideBand {
	pct, ok := overheadPct(tr)
	if !ok {
		return nil
	}
	holder := tr.View == hop.ViewHolder
	floor := 0.0
	if t.floorPct != nil {
		floor = *t.floorPct
	}
	lo, hi := hop.OverheadBand(holder, floor, tr.RecordsPct)
	if pct >= lo && pct <= hi {
		return nil
	}
	return &hop.OutsideBand{Pct: pct, Lo: lo, Hi: hi, Holder: holder, FloorPct: t.floorPct, RecordsPct: tr.RecordsPct}
}

// followChildren follows, as the relay they belong to, the children that
// comps' relay processes fork, until stop or for at most d; it returns
// those it followed. It polls the kernel's list of each one's children
// every millisecond: a fork is not an event a process can wait on for
// another's children.
func followChildren(tr *tracer.Tracer, comps map[int]string, stop <-chan struct{}, d time.Duration) []int {
	var out []int
	seen := map[int]bool{}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		for pid, name := range comps {
			if !tracer.IsRelay(name) {
				continue
			}
			list, _ := affinity.Children(pid)
			for _, kid := range list {
				if !seen[kid] && tr.Follow(kid, name) == nil {
					seen[kid] = true
					out = append(out, kid)
				}
			}
		}
		select {
		case <-stop:
			return out
		case <-deadline.C:
			return out
		case <-tick.C:
		}
	}
}

// freeCPUs are the CPUs this process may use that placement gives to none
// of the path's components; none when a component is unplaced.
func freeCPUs(placement affinity.Placement) affinity.CPUSet {
	mine, err := affinity.ThreadCPUs()
	if err != nil {
		return affinity.CPUSet{}
	}
	used := make([]affinity.CPUSet, 0, len(components))
	for _, c := range components {
		cpus, ok := placement.For(c)
		if !ok {
			return affinity.CPUSet{}
		}
		used = append(used, cpus)
	}
	return mine.Without(used...)
}

// tracedRequests is how many requests a traced round should hold: enough
// for its median band (the middle fifth) and twenty beyond its p99.
const tracedRequests = 2000

// tracedTime is how long a cell's traced round runs: long enough for
// tracedRequests at the rate its kept rounds ran, 100 ms at the least and
// a round's length at the most. A point select fills 0.25 s many times
// over, and every traced round costs the run its length and the
// assembly of what it recorded.
func tracedTime(round time.Duration, samples []hop.Sample, discard int) time.Duration {
	var tps []float64
	for i, smp := range samples {
		if i >= discard && smp.Failed == "" && smp.TPS > 0 {
			tps = append(tps, smp.TPS)
		}
	}
	if len(tps) == 0 {
		return round
	}
	slices.Sort(tps)
	d := time.Duration(float64(tracedRequests) / tps[len(tps)/2] * float64(time.Second))
	return min(round, max(d, 100*time.Millisecond))
}

func placementName(p affinity.Placement) string {
	if s := p.String(); s != "" {
		return s
	}
	return "unpinned"
}

// summariseTrace is the path's Trace from its traced requests (reqs, and
// the same sorted by round trip): the median band's mean split, the p99
// request's split and its longest segment.
func summariseTrace(reqs, byRTT []tracer.Request, lost uint64, name func(tid int) *hop.Task) *hop.Trace {
	n := len(byRTT)
	lo, hi := n*40/100, max(n*60/100, n*40/100+1)
	var band split.Split
	var bandUs, moves float64
	for i := lo; i < hi; i++ {
		band = band.Plus(byRTT[i].Split())
		bandUs += float64(byRTT[i].Sum()) / 1e3
		moves += float64(byRTT[i].Migrations)
	}
	k := float64(hi - lo)
	p99 := &byRTT[stats.Rank(len(byRTT), 0.99)]
	t := &hop.Trace{
		Requests:    n,
		IdentityPct: tracer.IdentityPct(reqs),
		CoveragePct: tracer.CoveragePct(reqs),
		P50Split:    band.Scaled(1 / k),
		P50Us:       bandUs / k,
		Migrations:  moves / k,
		Lost:        lost,
		P99Split:    p99.Split(),
		P99Us:       float64(p99.Sum()) / 1e3,
		P99Longest:  longest(p99, name),
	}
	var relay, records float64
	for i := range reqs {
		relay += reqs[i].Split().Relay()
		for _, g := range reqs[i].Segments {
			if tracer.IsRelay(g.Component) && (g.Kind == tracer.SegUser || g.Kind == tracer.SegKernel || g.Kind == tracer.SegSoftirq) {
				records += float64(g.Tracer) / 1e3
			}
		}
	}
	t.RelayCPUUs = relay / float64(len(reqs))
	t.RelayRecordsUs = records / float64(len(reqs))
	t.Found = traceCause(reqs, t)
	return t
}

// longest is the request's longest segment: what a tail request waited
// for; nil where it has none.
func longest(r *tracer.Request, name func(tid int) *hop.Task) *hop.Longest {
	var best *tracer.Segment
	for i := range r.Segments {
		if g := &r.Segments[i]; best == nil || g.Duration() > best.Duration() {
			best = g
		}
	}
	if best == nil {
		return nil
	}
	l := &hop.Longest{Component: best.Component, Kind: best.Kind.String(), Us: float64(best.Duration()) / 1e3, CPU: best.CPU}
	switch best.Kind {
	case tracer.SegRunnable:
		l.Runnable = true
		if best.Behind != 0 {
			l.Behind = name(best.Behind)
		}
	case tracer.SegOther:
		l.Other = true
	}
	return l
}

// taskOf is a thread for the report: its component on the path when the
// trace followed it, and its command as far as /proc still has it.
func taskOf(trace *tracer.Trace, tid int) *hop.Task {
	t := &hop.Task{TID: tid, Component: trace.Component(tid)}
	if name, err := affinity.ProcessName(tid); err == nil {
		t.Command = name
	}
	return t
}

// traceCause is what the traced requests show that would move a path's
// rounds: components moving between CPUs, or a tail that waits on a run
// queue; nil where they show neither.
func traceCause(reqs []tracer.Request, t *hop.Trace) *hop.TraceCause {
	moved := 0
	for i := range reqs {
		if reqs[i].Migrations > 0 {
			moved++
		}
	}
	if pct := 100 * float64(moved) / float64(len(reqs)); pct >= 1 {
		return &hop.TraceCause{Migration: true, Pct: pct}
	}
	if t.P99Longest == nil {
		return nil
	}
	return &hop.TraceCause{Runqueue: t.P99Split.Runnable > 0.5*t.P99Us}
}

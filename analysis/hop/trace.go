package hop

import (
	"math"

	"github.com/hoplat/hoplat/tracer/split"
)

// Trace is what the tracer saw of a path's sampled requests: one traced
// round run after its untraced ones, each request's critical path through
// the scheduler and the kernel (package tracer). The figures the report
// gives as the hop's cost stay the untraced rounds'; the trace explains
// them.
type Trace struct {
	Requests int `json:"requests"` // traced requests the split is taken over
	// IdentityPct is the median over requests of |sum of segments -
	// round trip| / round trip, in percent: how far the segments are from
	// partitioning each request.
	IdentityPct float64 `json:"identity_pct"`
	// CoveragePct is the median over requests of the share of the round
	// trip the events explain (all but Other).
	CoveragePct float64 `json:"coverage_pct"`
	// OverheadPct is the traced round's p50 against UntracedP50Us, or
	// where there is none the untraced kept rounds' median p50, in
	// percent.
	OverheadPct float64 `json:"overhead_pct"`
	TracedP50Us float64 `json:"traced_p50_us"`
	// UntracedP50Us is the mean p50 of two untraced rounds half as long
	// as the traced one, run just before and just after it on the same
	// processes: the tracer's cost compared like with like, where the
	// kept rounds ran earlier, longer, and with the machine as it was
	// then.
	UntracedP50Us float64 `json:"untraced_p50_us,omitempty"`
	// Pace is the kept rounds' median p50 over UntracedP50Us: how much
	// faster (below 1) or slower the machine ran in the kept rounds than
	// around the traced one. A guest can run every round trip a third
	// slower for seconds at a time, user code and system calls alike (the
	// client's own CPU time per request moves with it), so a traced round
	// that fell in the other state than the kept rounds is set to theirs:
	// the hop's split takes each traced request's parts times its pace.
	// 0 where there are no untraced rounds beside the traced one.
	Pace float64 `json:"pace,omitempty"`
	// P50Split is the split of the median request: the mean over the
	// requests whose round trip lies between the 40th and 60th
	// percentile, so that one odd request cannot stand for the median.
	// P99Split is the split of the request at the 99th percentile.
	P50Split  split.Split `json:"p50_split_us"`
	P99Split  split.Split `json:"p99_split_us"`
	P50Us     float64     `json:"p50_request_us"` // the traced round trips the splits sum to
	P99Us     float64     `json:"p99_request_us"`
	P99Detail string      `json:"p99_detail,omitempty"` // the p99 request's longest segment, in words
	// P99Longest is that segment as figures and names, which package
	// present says in P99Detail; nil where the request had none.
	P99Longest *Longest `json:"-"`
	// StatementsPerEvent is how many traced requests (one statement, from
	// a send to the reply's last read) make one of the path's events, a
	// transaction of several statements; 0 or 1 when they are the same.
	StatementsPerEvent float64 `json:"statements_per_event,omitempty"`
	// Migrations counts the followed tasks' moves between CPUs during the
	// traced requests, per request at the median.
	Migrations float64 `json:"migrations_per_request"`
	Lost       uint64  `json:"lost_events,omitempty"` // records the ring refused
	// Cause is, for an unstable path, what the trace shows of its rounds
	// (migration, runqueue wait behind whom); "" otherwise.
	Cause string `json:"cause"`
	// Found is Cause as a finding, which package present says in it;
	// nil where the trace shows nothing that would move the rounds.
	Found *TraceCause `json:"-"`
	// View is how the split charges a request's time: ViewHolder where the
	// components share one CPU (packed), ViewCriticalPath elsewhere.
	View string `json:"view,omitempty"`
	// SchedstatRelayCPUUs is the relays' time on CPU per traced request
	// as the kernel counts it (/proc/PID/task/*/schedstat) over the
	// untraced kept rounds: relay_cpu_us, per statement where an event is
	// several; nil on a direct path or where it was not read.
	SchedstatRelayCPUUs *float64 `json:"schedstat_relay_cpu_us,omitempty"`
	// SchedstatTracedRelayCPUUs is the kernel's same count over the
	// traced round itself, per request the tracer found: the tracer's
	// hooks run in the relay's context, so it holds what tracing cost the
	// relay as the split's relay parts with their records do. In the
	// holder view the split is set against it (SchedstatDiffPct).
	SchedstatTracedRelayCPUUs *float64 `json:"schedstat_traced_relay_cpu_us,omitempty"`
	// SchedstatDiff is SchedstatDiffPct: how far the split's relay parts
	// stand from the kernel's count of the same round, in percent; the
	// report warns beyond SchedstatTolerancePct. nil where there is
	// nothing to set side by side.
	SchedstatDiff *float64 `json:"schedstat_diff_pct,omitempty"`
	// RelayCPUUs is the split's relay parts averaged over every traced
	// request, as schedstat's figure is a mean over every request (a
	// relay's rarer, longer stays, a timer's or a runtime's, fall outside
	// the median band); 0 where not taken.
	RelayCPUUs float64 `json:"traced_relay_cpu_us,omitempty"`
	// RelayRecordsUs is the calibrated cost of the records taken in the
	// relay's segments, per traced request: already taken off RelayCPUUs.
	RelayRecordsUs float64 `json:"relay_records_us,omitempty"`
	// RecordsPerRequest is how many records the tracer wrote during the
	// traced round per request it found, and RecordsPct what writing
	// them cost the round trip: RecordsPerRequest times the calibrated
	// cost per record (tracer.per_record_ns), in percent of
	// UntracedP50Us. Part of the overhead the traced round is expected
	// to show (OverheadBand).
	RecordsPerRequest float64 `json:"records_per_request,omitempty"`
	RecordsPct        float64 `json:"records_pct,omitempty"`
	// NotTrusted says why the split may not describe the untraced rounds:
	// the traced round's overhead outside its band (OverheadBand) after a
	// repeat, so it did not see the untraced rounds' machine; "" when
	// trusted.
	NotTrusted string `json:"not_trusted,omitempty"`
	// Untrusted is NotTrusted as figures, which package present says in
	// it; nil where the split is trusted.
	Untrusted *OutsideBand `json:"-"`
}

// OutsideBand is a traced round whose overhead (Pct) was outside its band
// [Lo, Hi] (OverheadBand): in the holder view (Holder) or not, against
// the tracer's floor (FloorPct; nil where none was measured) and what
// its records cost (RecordsPct). Twice is set where the repeat was
// outside too.
type OutsideBand struct {
	Pct, Lo, Hi float64
	Holder      bool
	FloorPct    *float64
	RecordsPct  float64
	Twice       bool
}

// Longest is a traced request's longest segment: whose (Component, ""
// where no component held it), what it did (Kind, a tracer segment kind's
// name), for how long (µs) and on which CPU. A wait runnable (Runnable)
// names whom it waited behind (Behind; nil: an idle CPU's wake-up); Other
// is time the events do not explain.
type Longest struct {
	Component string
	Kind      string
	Us        float64
	CPU       int
	Runnable  bool
	Other     bool
	Behind    *Task
}

// Task is a thread a traced request waited behind: its component on the
// path where the trace followed it, and its command where /proc still had
// it (Command "" where not).
type Task struct {
	TID       int
	Component string
	Command   string
}

// TraceCause is what the traced requests show that would move a path's
// rounds: components moving between CPUs (Pct of the requests saw one
// move), or the p99 request's longest segment (Trace.P99Longest), a wait
// on a run queue where that is most of it (Runqueue).
type TraceCause struct {
	Migration bool
	Pct       float64
	Runqueue  bool
}

// The views a split is taken in (Trace.View).
const (
	// ViewHolder charges every microsecond to whoever held the CPU:
	// components sharing one CPU, where a request waiting runnable behind
	// the relay waits for the relay's own work.
	ViewHolder = "cpu_holder"
	// ViewCriticalPath follows the request back through its wake-ups:
	// components on CPUs of their own, where the relay's work after its
	// send runs beside the request, not in its way.
	ViewCriticalPath = "critical_path"
)

// SchedstatTolerancePct is how far, in percent of schedstat's figure, the
// relay parts of a holder-view split may be from the relay's schedstat
// time on CPU per request before the report says so. It is a verdict on
// one run, not a property of the code: how far the two stand apart is the
// machine's as much as the tracer's (the time a hypervisor steals inside
// the relay's turns is in the split's timestamps and, with paravirtual
// steal accounting, not in the kernel's count; a relay's work between
// requests is in the count and in no request).
const SchedstatTolerancePct = 10

// SchedstatDiffPct is how far, in percent of the kernel's count, the
// relay parts of a holder-view split are from the relay's schedstat time
// on CPU per request; ok is false where there is nothing to set side by
// side (no count, another view).
//
// Both sides are the traced round's where schedstat counted it: the
// split's relay parts with the records' calibrated cost put back (the
// hooks run in the relay's context, so the kernel counts them as its
// time), against the kernel's count over that round. Like with like: the
// untraced rounds ran earlier, and a guest whose speed moved between
// them and the traced round moves their count (schedstat_relay_cpu_us)
// and neither of these. Where the traced round was not counted, the
// split with the records taken out is set against the untraced count.
func (t *Trace) SchedstatDiffPct() (diff float64, ok bool) {
	if t == nil || t.View != ViewHolder {
		return 0, false
	}
	if s := t.SchedstatTracedRelayCPUUs; s != nil && *s > 0 {
		return 100 * (t.tracedRelayCPU() + t.RelayRecordsUs - *s) / *s, true
	}
	if s := t.SchedstatRelayCPUUs; s != nil && *s > 0 {
		return 100 * (t.tracedRelayCPU() - *s) / *s, true
	}
	return 0, false
}

// tracedRelayCPU is the split's relay parts per request, the records'
// cost taken out: the mean over every traced request where it was taken,
// the median band's otherwise.
func (t *Trace) tracedRelayCPU() float64 {
	if t.RelayCPUUs != 0 {
		return t.RelayCPUUs
	}
	return t.P50Split.Relay()
}

// SchedstatGap is a holder-view split whose relay parts (SplitUs) stand
// more than SchedstatTolerancePct (DiffPct) from the relays' time on CPU
// per request the kernel counted (CountedUs): over the traced round itself
// (SameRound, the split's records put back), else over the untraced
// rounds.
type SchedstatGap struct {
	SplitUs, CountedUs, DiffPct float64
	SameRound                   bool
}

// SchedstatGap is how far t's split and the kernel's count stand apart
// (SchedstatDiffPct); ok is false where they agree within
// SchedstatTolerancePct, or where there is nothing to set side by side.
func (t *Trace) SchedstatGap() (g SchedstatGap, ok bool) {
	diff, ok := t.SchedstatDiffPct()
	if !ok || math.Abs(diff) <= SchedstatTolerancePct {
		return SchedstatGap{}, false
	}
	if s := t.SchedstatTracedRelayCPUUs; s != nil && *s > 0 {
		return SchedstatGap{SplitUs: t.tracedRelayCPU() + t.RelayRecordsUs, CountedUs: *s, DiffPct: diff, SameRound: true}, true
	}
	return SchedstatGap{SplitUs: t.tracedRelayCPU(), CountedUs: *t.SchedstatRelayCPUUs, DiffPct: diff}, true
}

// OverheadBand is the range of overhead_pct in which a traced round saw
// the untraced rounds' machine: from -5% to what tracing costs plus 5%
// where the components share a CPU (holder), -10% to that cost plus 10%
// elsewhere, where wake-ups across CPUs move more between rounds. What
// tracing costs is the hooks' bare dispatch (floorPct, measured on the
// packed direct path) and the records the round wrote (recordsPct,
// Trace.RecordsPct): a path whose requests make many records pays for
// each.
func OverheadBand(holder bool, floorPct, recordsPct float64) (lo, hi float64) {
	if holder {
		return -5, floorPct + recordsPct + 5
	}
	return -10, floorPct + recordsPct + 10
}

// decomposeTrace splits a relay path's added p50 from its traced median
// request against its baseline's: relay code is the relays' user and
// kernel time on the critical path, wake-ups the extra waits runnable and
// for idle CPUs, the kernel the extra legs and softirq time, endpoints the
// client's and server's extra time, and the residual what the events do
// not explain (Other).
//
// Every part is at least 0. A part the relay path spent less of than its
// baseline (fewer waits runnable at 32 threads, where a relay batches what
// the server would have queued) is a saving inside the hop: it is netted
// out of the parts that grew, each in proportion, and the note says so.
//
// The figure is the untraced added p50. Relay code is taken as traced
// (the tracer's calibrated cost per record already off its segments): it
// is the relays' own work per request, which does not change with the
// waits around it, so that a sweep of service times or a round slower
// than another does not move it. The rest of the added p50 is shared
// between the other parts in their traced proportions: the traced rounds
// run slower than the untraced ones by what tracing costs beyond its
// calibrated cost per record, and under many threads queueing makes that
// more than linear, so the waits and legs say what the rest is made of
// and the untraced rounds how much it costs. Explained is the share the
// events cover.
func decomposeTrace(p PathResult, base *PathResult) (Decomposition, bool) {
	if p.Trace == nil || base == nil || base.Trace == nil || p.AddedUs == nil {
		return Decomposition{}, false
	}
	x := p.Trace.P50Split.Scaled(p.Trace.pace()).Minus(base.Trace.P50Split.Scaled(base.Trace.pace()))
	if k := p.Trace.StatementsPerEvent; k > 1 {
		// A traced request is one statement; the added p50 is per
		// transaction of k of them, each through the hop.
		x = x.Scaled(k)
	}
	relay := x.RelayUser + x.RelayKernel
	rest := []struct {
		name string
		v    float64
	}{
		{"wake-ups", x.Runnable + x.IdleExit},
		{"kernel", x.Legs + x.Softirq + x.RelaySoftirq}, // the softirqs in the relays' context too: the kernel's path
		{"endpoints", x.Endpoints},
		{"unexplained", x.Other},
	}
	grew, saved := max(0, relay), max(0, -relay)
	var restGrew float64
	var savings []Saving
	if relay < 0 {
		savings = append(savings, Saving{"relay code", -relay})
	}
	for _, q := range rest {
		if q.v >= 0 {
			grew += q.v
			restGrew += q.v
		} else {
			saved -= q.v
			savings = append(savings, Saving{q.name, -q.v})
		}
	}
	added := p.AddedUs.P50
	if grew <= 0 || added <= 0 {
		return Decomposition{Method: "trace", Residual: added, Split: &SplitNote{NotSplit: true, TracedUs: grew - saved}}, true
	}
	code := min(max(0, relay), added)
	left := added - code
	share := func(v float64) float64 {
		if restGrew <= 0 {
			return 0
		}
		return max(0, v) / restGrew * left
	}
	traced := grew - saved
	note := &SplitNote{TracedUs: traced, Untrusted: p.Trace.Untrusted}
	if len(savings) > 0 {
		note.GrewUs, note.SavedUs, note.Savings = grew, saved, savings
	}
	if code < max(0, relay) {
		note.RelayOverUs = relay
	}
	if traced > 0 && (traced/added > 2 || added/traced > 2) {
		note.TracedRatio = traced / added
	}
	ends := share(rest[2].v)
	residual := share(rest[3].v)
	if restGrew <= 0 {
		// Nothing but the relays' own time grew: the rest of the hop is
		// what the events do not explain.
		residual = left
	}
	// The idle exits are a part of the wake-ups, shared out as they are.
	var idle *IdleExits
	if x.IdleExit > 0 && rest[0].v > 0 {
		w := share(rest[0].v)
		relayIdle := min(max(0, x.IdleExitRelay), x.IdleExit)
		idle = &IdleExits{Relay: w * relayIdle / rest[0].v, Endpoints: w * (x.IdleExit - relayIdle) / rest[0].v}
	}
	d := Decomposition{
		Method:    "trace",
		IdleExit:  idle,
		RelayCode: code,
		Wakeups:   share(rest[0].v),
		Kernel:    share(rest[1].v),
		Endpoints: &ends,
		Residual:  residual,
		Split:     note,
	}
	return d, true
}

// Pace bounds: a traced round set to kept rounds more than twice as fast
// or slow as it ran is not one machine in two states but a path that
// changed (placement, queueing), and is left as traced.
const minPace, maxPace = 0.5, 2.0

// pace is the factor the traced split is set to the kept rounds' machine
// with: Pace, or 1 where it is unknown or out of bounds.
func (t *Trace) pace() float64 {
	if t.Pace < minPace || t.Pace > maxPace {
		return 1
	}
	return t.Pace
}

package hop

import (
	"fmt"
	"math"
	"strings"
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
	// OverheadPct is the traced round's p50 against the untraced kept
	// rounds' median p50, in percent.
	OverheadPct float64 `json:"overhead_pct"`
	TracedP50Us float64 `json:"traced_p50_us"`
	// P50Split is the split of the median request: the mean over the
	// requests whose round trip lies between the 40th and 60th
	// percentile, so that one odd request cannot stand for the median.
	// P99Split is the split of the request at the 99th percentile.
	P50Split  TraceSplit `json:"p50_split_us"`
	P99Split  TraceSplit `json:"p99_split_us"`
	P50Us     float64    `json:"p50_request_us"` // the traced round trips the splits sum to
	P99Us     float64    `json:"p99_request_us"`
	P99Detail string     `json:"p99_detail,omitempty"` // the p99 request's longest segment, in words
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
}

// TraceSplit is a traced request's round trip by what it was made of, in
// microseconds; its parts add up to the request's traced round trip, the
// tracer's own calibrated cost taken off.
type TraceSplit struct {
	RelayUser   float64 `json:"relay_user"`   // relays' user time
	RelayKernel float64 `json:"relay_kernel"` // relays' system calls and kernel threads
	Runnable    float64 `json:"runnable"`     // every component's wait for its CPU
	IdleExit    float64 `json:"idle_exit"`    // woken CPUs leaving idle
	Softirq     float64 `json:"softirq"`
	Legs        float64 `json:"legs"`      // senders' system calls up to the next component's wake-up
	Endpoints   float64 `json:"endpoints"` // the client's and the server's user and kernel time
	Other       float64 `json:"other"`     // what the events do not explain
}

// Total adds the parts.
func (s TraceSplit) Total() float64 {
	return s.RelayUser + s.RelayKernel + s.Runnable + s.IdleExit + s.Softirq + s.Legs + s.Endpoints + s.Other
}

// Minus is s less b part by part: what a relay path's request spent beyond
// its direct baseline's.
func (s TraceSplit) Minus(b TraceSplit) TraceSplit {
	return TraceSplit{s.RelayUser - b.RelayUser, s.RelayKernel - b.RelayKernel, s.Runnable - b.Runnable,
		s.IdleExit - b.IdleExit, s.Softirq - b.Softirq, s.Legs - b.Legs, s.Endpoints - b.Endpoints, s.Other - b.Other}
}

// Plus is s and b added part by part.
func (s TraceSplit) Plus(b TraceSplit) TraceSplit {
	return TraceSplit{s.RelayUser + b.RelayUser, s.RelayKernel + b.RelayKernel, s.Runnable + b.Runnable,
		s.IdleExit + b.IdleExit, s.Softirq + b.Softirq, s.Legs + b.Legs, s.Endpoints + b.Endpoints, s.Other + b.Other}
}

// Scaled is s with every part times k.
func (s TraceSplit) Scaled(k float64) TraceSplit {
	return TraceSplit{s.RelayUser * k, s.RelayKernel * k, s.Runnable * k, s.IdleExit * k,
		s.Softirq * k, s.Legs * k, s.Endpoints * k, s.Other * k}
}

// String lists the non-zero parts in words, largest first.
func (s TraceSplit) String() string {
	parts := []struct {
		name string
		v    float64
	}{{"relay user", s.RelayUser}, {"relay kernel", s.RelayKernel}, {"runnable", s.Runnable},
		{"idle exit", s.IdleExit}, {"softirq", s.Softirq}, {"legs", s.Legs}, {"endpoints", s.Endpoints}, {"other", s.Other}}
	var out []string
	for _, p := range parts {
		if math.Abs(p.v) >= 0.05 {
			out = append(out, fmt.Sprintf("%s %s", p.name, Us(p.v)))
		}
	}
	return strings.Join(out, ", ")
}

// decomposeTrace splits a relay path's added p50 from its traced median
// request against its baseline's: relay code is the relays' user and
// kernel time on the critical path, wake-ups the extra waits runnable and
// for idle CPUs, the kernel the extra legs and softirq time, endpoints the
// client's and server's extra time, and the residual what the events do
// not explain (Other). The traced rounds run slower than the untraced ones
// by what the tracer's collector and caches cost beyond its calibrated
// per-record cost, so the parts are the traced request's shares scaled to
// the untraced added p50: the trace says what the hop is made of, the
// untraced rounds how much it costs. Explained is then the share the
// events cover. A traced difference that does not fit the untraced one
// (not above zero, or scaled more than 2x either way) is left unscaled,
// and what it does not cover shows as residual.
func decomposeTrace(p PathResult, base *PathResult) (Decomposition, bool) {
	if p.Trace == nil || base == nil || base.Trace == nil || p.AddedUs == nil {
		return Decomposition{}, false
	}
	x := p.Trace.P50Split.Minus(base.Trace.P50Split)
	if k := p.Trace.StatementsPerEvent; k > 1 {
		// A traced request is one statement; the added p50 is per
		// transaction of k of them, each through the hop.
		x = x.Scaled(k)
	}
	added := p.AddedUs.P50
	scale, note := 1.0, ""
	if traced := x.Total(); traced > 0 && added > 0 && traced/added <= 2 && added/traced <= 2 {
		scale = added / traced
		note = fmt.Sprintf("traced shares scaled to the untraced added p50 (the traced hop was %s µs)", Us(traced))
	} else {
		note = fmt.Sprintf("the traced hop (%s µs) does not fit the untraced one: unscaled", Us(traced))
	}
	ends := x.Endpoints * scale
	d := Decomposition{
		Method:    "trace",
		RelayCode: (x.RelayUser + x.RelayKernel) * scale,
		Wakeups:   (x.Runnable + x.IdleExit) * scale,
		Kernel:    (x.Legs + x.Softirq) * scale,
		Endpoints: &ends,
		Note:      note,
	}
	d.Residual = added - d.RelayCode - d.Wakeups - d.Kernel - ends
	return d, true
}

package split

import (
	"fmt"
	"math"
	"strings"
)

// Split is a traced request's round trip by what it was made of, in
// microseconds, with DESIGN.md's "Traced requests" names; its parts add up
// to the request's traced round trip, the tracer's own calibrated cost
// taken off. The parts whose names start with relay are the relays' time
// on CPU: where the components share a CPU, every microsecond the relay
// held it (see tracer.Config.ChargeHolder).
type Split struct {
	RelayUser   float64 `json:"relay_user"`   // relays' user time
	RelayKernel float64 `json:"relay_kernel"` // relays' system calls and kernel threads
	// RelaySoftirq is softirq time in a relay's context (on loopback the
	// receive half of its sends), which the kernel counts as the relay's
	// time on CPU without CONFIG_IRQ_TIME_ACCOUNTING.
	RelaySoftirq float64 `json:"relay_softirq,omitempty"`
	Runnable     float64 `json:"runnable"`  // every component's wait for its CPU
	IdleExit     float64 `json:"idle_exit"` // woken CPUs leaving idle
	// IdleExitRelay is the part of IdleExit spent by relays' CPUs leaving
	// idle to run a woken relay: what a relay that polls on a CPU of its
	// own removes. The rest is the client's and server's CPUs'. It is a
	// part of IdleExit, not beside it, so Total leaves it out.
	IdleExitRelay float64 `json:"idle_exit_relay,omitempty"`
	Softirq       float64 `json:"softirq"`   // softirq time on the path, in no relay's context
	Legs          float64 `json:"legs"`      // senders' system calls up to the next component's wake-up
	Endpoints     float64 `json:"endpoints"` // the client's and the server's user and kernel time
	Other         float64 `json:"other"`     // what the events do not explain
}

// Relay is the relays' parts: their time on CPU on the request's path.
func (s Split) Relay() float64 { return s.RelayUser + s.RelayKernel + s.RelaySoftirq }

// Total adds the parts.
func (s Split) Total() float64 {
	return s.Relay() + s.Runnable + s.IdleExit + s.Softirq + s.Legs + s.Endpoints + s.Other
}

// Minus is s less b part by part: what a relay path's request spent beyond
// its direct baseline's.
func (s Split) Minus(b Split) Split { return s.Plus(b.Scaled(-1)) }

// Plus is s and b added part by part.
func (s Split) Plus(b Split) Split {
	return Split{RelayUser: s.RelayUser + b.RelayUser, RelayKernel: s.RelayKernel + b.RelayKernel,
		RelaySoftirq: s.RelaySoftirq + b.RelaySoftirq, Runnable: s.Runnable + b.Runnable, IdleExit: s.IdleExit + b.IdleExit,
		IdleExitRelay: s.IdleExitRelay + b.IdleExitRelay, Softirq: s.Softirq + b.Softirq, Legs: s.Legs + b.Legs,
		Endpoints: s.Endpoints + b.Endpoints, Other: s.Other + b.Other}
}

// Scaled is s with every part times k.
func (s Split) Scaled(k float64) Split {
	return Split{RelayUser: s.RelayUser * k, RelayKernel: s.RelayKernel * k, RelaySoftirq: s.RelaySoftirq * k,
		Runnable: s.Runnable * k, IdleExit: s.IdleExit * k, IdleExitRelay: s.IdleExitRelay * k, Softirq: s.Softirq * k,
		Legs: s.Legs * k, Endpoints: s.Endpoints * k, Other: s.Other * k}
}

// String lists the parts of at least 0.05 µs in words, in the order of
// the path (the report's form): "relay user 3.2, runnable 1.0".
func (s Split) String() string {
	var out []string
	for _, p := range s.parts() {
		if math.Abs(p.v) >= 0.05 {
			out = append(out, p.words+" "+us(p.v))
		}
	}
	return strings.Join(out, ", ")
}

// Fields lists every part by its JSON name, in µs with one decimal
// (relay_softirq only where it is not 0): a log line's form.
func (s Split) Fields() string {
	var out []string
	for _, p := range s.parts() {
		if p.key == "relay_softirq" && p.v == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s %.1f", p.key, p.v))
	}
	return strings.Join(out, " ")
}

type part struct {
	key, words string
	v          float64
}

func (s Split) parts() []part {
	return []part{{"relay_user", "relay user", s.RelayUser}, {"relay_kernel", "relay kernel", s.RelayKernel},
		{"relay_softirq", "relay softirq", s.RelaySoftirq}, {"runnable", "runnable", s.Runnable},
		{"idle_exit", "idle exit", s.IdleExit}, {"softirq", "softirq", s.Softirq}, {"legs", "legs", s.Legs},
		{"endpoints", "endpoints", s.Endpoints}, {"other", "other", s.Other}}
}

// us prints microseconds as the reports do (analysis/hop.Us): one decimal
// below 100, none from there.
func us(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

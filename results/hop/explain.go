package hop

import (
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/results"
)

// Decomposition splits a relay path's added p50 round trip (µs per
// request) into what was measured of it: the relay's own code, the extra
// wake-ups, the extra loopback legs, and what none of these account for.
type Decomposition struct {
	// RelayCode is the CPU time the relays ran per request over the timed
	// rounds, every hop (relay_cpu_us), less the extra legs' kernel path
	// that their system calls carry (Kernel); without it, hoprelay's residence
	// per request (relay_us), which is wall time and on a shared CPU
	// includes the time the relay was preempted.
	RelayCode float64 `json:"relay_code"`
	// Wakeups is what the extra threads woken per request cost: one per
	// direction per hop, at the probe's same-CPU or cross-CPU constant as
	// the components' CPUs say, less the baseline's.
	Wakeups float64 `json:"wakeups"`
	// Kernel is the extra loopback legs, one per direction per hop, at
	// the probe's one-way cost of a leg on one CPU.
	Kernel   float64 `json:"kernel"`
	Residual float64 `json:"residual"`
	Method   string  `json:"method"`         // "probe": counts times the probe's constants; "timestamps": kernel receive stamps
	Note     string  `json:"note,omitempty"` // what was not measured
}

// Explain decomposes the added p50 of every relay path that has one, with
// the probe's constants m. A path left to the scheduler (regime none) is
// not decomposed: which wake-ups crossed CPUs is not known.
func Explain(paths []PathResult, m *results.Machine) {
	if m == nil {
		return
	}
	for i := range paths {
		p := &paths[i]
		if p.Relay == Direct || p.AddedUs == nil || p.Regime == "none" || p.Hops < 1 {
			continue
		}
		d := decompose(*p, m)
		p.Decomposition = &d
		if added := p.AddedUs.P50; added > 0 {
			e := max(0, 100*(1-abs(d.Residual)/added))
			p.ExplainedPct = &e
		}
	}
}

func decompose(p PathResult, m *results.Machine) Decomposition {
	d := Decomposition{Method: "probe"}
	switch {
	case p.RelayCPUUs != nil:
		d.RelayCode = *p.RelayCPUUs
	case p.RelayUs != nil:
		d.RelayCode = *p.RelayUs
		d.Note = "relay code is hoprelay's residence: wall time, preemption included"
	default:
		d.Note = "relay code not measured: it is in the residual"
	}
	client, relay, server := p.Placement["client"], p.Placement["relay"], p.Placement["server"]
	hops := float64(p.Hops)
	// Each message wakes its receiver: per request a hop adds a relay
	// woken each way; the chain's edges replace the direct path's one.
	path := wake(m, client, relay) + (hops-1)*wake(m, relay, relay) + wake(m, relay, server)
	d.Wakeups = 2 * (path - wake(m, client, server))
	if p.Relay == Sockmap {
		// The verdict program runs in the sender's softirq and queues
		// the bytes on the far socket: no relay thread wakes per
		// message, and what the program costs is charged to the
		// sender, in the kernel legs, not to the relay's process.
		d.Wakeups = 0
	}
	// relay_wake_us, the relay's own wake-ups from the kernel's stamps,
	// is not used here: on a shared CPU it holds the time the sender ran
	// on after queueing the bytes (a Go sender's scheduler spins before
	// it sleeps), which the direct path's wake-ups hold as well; only the
	// baseline's own stamped wake-ups could be taken off it.
	leg := m.Leg.TCP
	if p.UpstreamTransport == UNIX {
		leg = m.Leg.UNIX
	}
	d.Kernel = 2 * hops * leg
	if p.RelayCPUUs != nil {
		// The extra legs' kernel path runs in the relay's own read and
		// write calls, so its CPU time holds them: take them out, or they
		// count twice.
		d.RelayCode = max(0, d.RelayCode-d.Kernel)
	}
	d.Residual = p.AddedUs.P50 - d.RelayCode - d.Wakeups - d.Kernel
	return d
}

// wake is the one-way wake-up of a thread on CPUs b by one on CPUs a: the
// same-CPU constant when both are the same single CPU, else the
// cross-CPU one (the same-CPU one on a machine that has no second CPU).
func wake(m *results.Machine, a, b string) float64 {
	if a == b && singleCPU(a) {
		return m.Wake.SameCPU
	}
	if m.Wake.CrossCPU == 0 {
		return m.Wake.SameCPU
	}
	return m.Wake.CrossCPU
}

// measured says whether the relay code is a measurement rather than left
// in the residual.
func (d Decomposition) measured() bool { return !strings.HasPrefix(d.Note, "relay code not measured") }

func singleCPU(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

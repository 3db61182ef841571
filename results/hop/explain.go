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
// the probe's constants m and, where the legs carry them, the kernel's
// receive stamps. A path left to the scheduler (regime none) is not
// decomposed: which wake-ups crossed CPUs is not known.
func Explain(paths []PathResult, m *results.Machine) {
	if m == nil {
		return
	}
	for i := range paths {
		p := &paths[i]
		if p.Relay == Direct || p.AddedUs == nil || p.Regime == "none" || p.Hops < 1 {
			continue
		}
		d := decompose(*p, baselineResult(paths, *p), m)
		p.Decomposition = &d
		if added := p.AddedUs.P50; added > 0 {
			e := max(0, 100*(1-abs(d.Residual)/added))
			p.ExplainedPct = &e
		}
	}
}

// baselineResult is the direct path p's added latency is measured
// against: same client transport, regime and setting; nil when the run
// has none.
func baselineResult(paths []PathResult, p PathResult) *PathResult {
	for i := range paths {
		b := &paths[i]
		if b.Relay == Direct && b.ClientTransport == p.ClientTransport && b.Regime == p.Regime &&
			b.Threads == p.Threads && b.ServiceTimeUs == p.ServiceTimeUs && b.Size == p.Size && b.Rows == p.Rows {
			return b
		}
	}
	return nil
}

func decompose(p PathResult, base *PathResult, m *results.Machine) Decomposition {
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
	switch {
	case p.Relay == Sockmap:
		// No relay thread wakes per message: the verdict program runs
		// in the sender's softirq and, for an egress redirect
		// (bpf_sk_redirect_map flags 0), sk_psock_skb_redirect
		// (net/core/skmsg.c) queues the skb on the peer's psock
		// (skb_queue_tail on ingress_skb) and schedules its work item
		// (schedule_delayed_work on the system workqueue, which is per
		// CPU): a kworker on the CPU that ran the verdict, the sender's
		// (loopback runs the receive softirq on the sending CPU), runs
		// sk_psock_backlog and sends the bytes on. So each hop adds one
		// same-CPU wake-up per direction, on the sender's CPU, and the
		// receiver is woken from that CPU as the direct path's would be.
		d.Wakeups = 2 * hops * m.Wake.SameCPU
	case stamped(p, base):
		d.Method = "timestamps"
		d.Wakeups = stampedWakeups(p, *base, m)
	default:
		// Each message wakes its receiver: per request a hop adds a
		// relay woken each way; the chain's edges replace the direct
		// path's one.
		path := wake(m, client, relay) + (hops-1)*wake(m, relay, relay) + wake(m, relay, server)
		d.Wakeups = 2 * (path - wake(m, client, server))
	}
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

// stamped says whether p's wake-ups can be taken from the kernel's receive
// stamps: the relays stamped both directions of every hop (TCP legs on
// both sides of an event-loop relay: relay_wake_us) and the client stamped
// its responses on this path and on its baseline (a TCP client leg:
// client_wake_us).
func stamped(p PathResult, base *PathResult) bool {
	return p.RelayWakeUs != nil && p.ClientWakeUs != nil && base != nil && base.ClientWakeUs != nil
}

// stampedWakeups is the wake-ups a path adds per request, measured where
// the kernel stamps: the relays' stamped wake-ups, plus the change in the
// client's, plus the change in the server's, which is not stamped (the
// responder reads without stamps) and is taken from the probe's constants
// as the probe method takes every wake-up.
//
// What a stamp includes: the kernel stamps the bytes in the sender's
// context (loopback's netif_rx, inside the sender's write), and the delay
// runs to the reader's read returning. Across CPUs that is the wake-up
// proper (the IPI, the idle exit, the switch). On a CPU the reader shares
// with the sender it is more: the reader cannot run before the sender
// leaves the CPU, so the delay also holds the rest of the sender's write
// and whatever it runs until it sleeps (a Go sender's scheduler looks for
// work before it parks): the sender's tail, the sender's time, not the
// reader's. On one CPU, per request, with t a component's tail and s a
// switch, each wake-up costs its waker's tail and a switch:
//
//	                  direct            through a relay
//	server woken by   client: t_c + s   relay: t_r + s     (not stamped)
//	relay woken by                      client and server: t_c + t_s + 2s (relay_wake_us)
//	client woken by   server: t_s + s   relay: t_r + s     (client_wake_us)
//
// The hop adds 2 t_r + 2s. The relays' stamps hold the tails of the client
// and the server, which the direct path pays as well, in its own two
// wake-ups: taking the client's direct wake-up off removes the server's
// tail, and replacing it with the client's wake-up on this path adds the
// relay's tail. The sum is t_c + t_r + 2s: the server's side, t_r - t_c
// (woken after the relay's tail rather than the client's), the probe
// prices at zero (same-CPU wake-up both ways), so what it is lands in the
// residual. Across CPUs the tails drop out and the client's and server's
// changes are each a cross-CPU wake-up replacing whatever the direct path
// had. The relay's tails (t_r) are also in its CPU time, the relay code:
// a relay that keeps its CPU long after a write counts twice, and the
// residual goes negative by that much.
func stampedWakeups(p, base PathResult, m *results.Machine) float64 {
	client := *p.ClientWakeUs - *base.ClientWakeUs
	server := wake(m, lastRelayCPU(p), p.Placement["server"]) - wake(m, base.Placement["client"], base.Placement["server"])
	return *p.RelayWakeUs + client + server
}

// lastRelayCPU is the CPUs of the relay that writes to the server: the
// placement keeps one entry for the relays, "|" between hops that differ.
func lastRelayCPU(p PathResult) string {
	r := p.Placement["relay"]
	if i := strings.LastIndexByte(r, '|'); i >= 0 {
		return r[i+1:]
	}
	return r
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

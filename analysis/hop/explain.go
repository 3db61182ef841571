package hop

import (
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/roles"
)

// Decomposition splits a relay path's added p50 round trip (µs per
// request) into what was measured of it: the relay's own code, the extra
// wake-ups, the extra loopback legs, and what none of these account for.
type Decomposition struct {
	// RelayCode is the CPU time the relays ran per request over the timed
	// rounds, every hop (relay_cpu_us), less the extra legs' kernel path
	// that their system calls carry (Kernel); without it, hoprelay's residence
	// per request (relay_us), which is wall time and on a shared CPU
	// includes the time the relay was preempted. With CPU time, the
	// wake-ups whose switches it holds come out too (see carved). A
	// sockmap hop's is the CPU time of the kworkers that carry its bytes
	// (Kworkers).
	RelayCode float64 `json:"relay_code"`
	// Wakeups is what the extra threads woken per request cost: one per
	// direction per hop, at the probe's same-CPU or cross-CPU constant as
	// the components' CPUs say, less the baseline's (method "probe"), or,
	// where the relay's and the client's wake-ups cross CPUs, as the
	// kernel's receive stamps measured them (method "timestamps"). A
	// sockmap hop's are the kworkers that carry its redirected bytes.
	Wakeups float64 `json:"wakeups"`
	// Kernel is the extra loopback legs, one per direction per hop, at
	// the probe's one-way cost of a leg on one CPU.
	Kernel float64 `json:"kernel"`
	// Endpoints is what the client and the server ran per request beyond
	// their direct baseline's (Endpoints less the baseline's, both
	// summed): the senders' own share of the hop, the verdict a sockmap
	// hop runs in their softirq, the relay preempting them. Absent when
	// either path lacks a reading.
	Endpoints *float64 `json:"endpoints,omitempty"`
	// MeanExcess is how much the hop's added mean round trip exceeds its
	// added p50 (the path's mean less its baseline's, less AddedUs.P50),
	// where the CPU figures above stand for the whole hop: with the
	// endpoints counted. CPU time per request is a mean, so where a hop's
	// tail is long its CPU figures overstate the median request by that
	// much: it comes off them, and the residual is what the CPU time does
	// not hold of the mean (idle waits, steal). Without this term a hop
	// with a long tail and a direct path without one leaves a negative
	// residual (docs/measurements.md, "Explaining a hop").
	MeanExcess *float64 `json:"mean_excess,omitempty"`
	// IdleExit is the part of Wakeups that CPUs spent leaving idle
	// (method "trace"): on the relay's CPU, which a relay that polls on a
	// CPU of its own removes, and on the client's and server's, which
	// only a placement that keeps them busy or a cpuidle governor that
	// polls removes. Absent where the trace saw none.
	IdleExit *IdleExits `json:"idle_exit,omitempty"`
	Residual float64    `json:"residual"`
	Method   string     `json:"method"`         // "probe": counts times the probe's constants; "timestamps": kernel receive stamps
	Note     string     `json:"note,omitempty"` // what was not measured
	// Split is how a traced decomposition (method "trace") was taken,
	// as figures; package present says it in Note.
	Split *SplitNote `json:"-"`
}

// SplitNote is how decomposeTrace split a traced hop: the traced hop, the
// parts the path spent less of than its baseline, and the caveats found.
type SplitNote struct {
	// NotSplit is set where no part grew over the baseline's: the hop
	// was not split, TracedUs being the traced hop.
	NotSplit bool
	TracedUs float64 // the parts that grew less those saved
	GrewUs   float64 // the parts that grew
	SavedUs  float64 // the parts saved, Savings summed
	// Savings are the parts the path spent less of than its baseline, in
	// the split's order.
	Savings []Saving
	// RelayOverUs is the relays' traced time where it is more than the
	// untraced hop (relay code then taken as the hop); 0 otherwise.
	RelayOverUs float64
	// TracedRatio is the traced hop over the untraced one where either is
	// more than twice the other; 0 otherwise.
	TracedRatio float64
	Untrusted   *OutsideBand // Trace.Untrusted
}

// Saving is one part of a traced hop the path spent less of than its
// baseline, by the split's name for the part.
type Saving struct {
	Part string
	Us   float64
}

// IdleExits is a hop's idle exits by whose CPU left idle, in µs of the
// added p50.
type IdleExits struct {
	Relay     float64 `json:"relay"`     // the relays' CPUs, to run a woken relay
	Endpoints float64 `json:"endpoints"` // the client's and the server's CPUs
}

// Kworkers is what the kernel's per-CPU workqueue threads (kworker/N:M)
// of a sockmap path's CPUs ran per request over its timed rounds: the
// hop's per-message work (sk_psock_backlog sending the redirected bytes
// on), which runs in them and in no process of the path.
type Kworkers struct {
	CPUs string `json:"cpus"` // the CPUs whose workers were read
	// CPUUs is their CPU time per request less BaselineCPUUs, floored at
	// 0: relay_cpu_us holds it.
	CPUUs float64 `json:"cpu_us"`
	// BaselineCPUUs is what they ran per request over the rounds of the
	// path's direct baseline: the kernel's work unrelated to the hop.
	BaselineCPUUs float64 `json:"baseline_cpu_us"`
	// Runs is the times a worker was switched in to run per request, less
	// the baseline's: one per direction per hop when each message wakes
	// one.
	Runs float64 `json:"runs"`
	// Error says why they were not read; relay_cpu_us is then the relay
	// processes' alone, and the figures above are 0.
	Error string `json:"error,omitempty"`
}

// Endpoints is the CPU time the load client and the responder ran per
// request over a path's kept rounds, each round's requests with its
// warm-up (which they served too), as relay_cpu_us is counted.
type Endpoints struct {
	// ClientCPUUs is pingpong's utime+stime (every thread, its start-up
	// and warm-up included; the baseline's subtraction takes the start-up
	// off) per request.
	ClientCPUUs float64 `json:"client_cpu_us"`
	// ServerCPUUs is the responder process's, read around each round.
	ServerCPUUs float64 `json:"server_cpu_us"`
	// Error says why they were not read; the figures are then 0 and the
	// decomposition has no endpoints.
	Error string `json:"error,omitempty"`
}

// Explain decomposes the added p50 of every relay path that has one, with
// the probe's constants m and, where the legs carry them, the kernel's
// receive stamps. A path left to the scheduler (regime none) is not
// decomposed: which wake-ups crossed CPUs is not known.
func Explain(paths []PathResult, m *machine.Machine) {
	if m == nil {
		return
	}
	for i := range paths {
		p := &paths[i]
		if p.Relay == Direct || p.AddedUs == nil || p.Hops < 1 {
			continue
		}
		base := baselineResult(paths, *p)
		d, traced := decomposeTrace(*p, base)
		if !traced {
			if p.Regime == "none" {
				// Unpinned, the constants cannot be placed: only a
				// trace, which sees where each component ran, splits it.
				continue
			}
			d = decompose(*p, base, m)
			if p.traceNote != "" {
				d.Note = joinNote(d.Note, "not traced: "+p.traceNote)
			}
		}
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

func decompose(p PathResult, base *PathResult, m *machine.Machine) Decomposition {
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
		client, relay, server := p.Placement[roles.Client], p.Placement[roles.Relay], p.Placement[roles.Server]
		path := wake(m, client, relay) + (hops-1)*wake(m, relay, relay) + wake(m, relay, server)
		d.Wakeups = 2 * (path - wake(m, client, server))
	}
	leg := m.Leg.TCP
	if p.UpstreamTransport == UNIX {
		leg = m.Leg.UNIX
	}
	d.Kernel = 2 * hops * leg
	switch {
	case p.Relay == Sockmap && p.RelayCPUUs != nil && p.Kworkers != nil && p.Kworkers.Error == "":
		// The hop's per-message work runs in no process: hoprelay only
		// set the sockets up. It runs in the kworkers of the senders'
		// CPUs (see above), and relay_cpu_us holds their CPU time over
		// the baseline's (Kworkers). sk_psock_backlog sends the bytes on
		// (skb_send_sock): the extra leg's send, and its receive softirq
		// too, run in the worker (without CONFIG_IRQ_TIME_ACCOUNTING a
		// softirq is charged to the task it interrupts; with it, to no
		// task, and the figure here is low by that share). Every
		// wake-up is of a worker on the sender's CPU: all are carved.
		d.RelayCode = max(0, d.RelayCode-d.Kernel-d.Wakeups)
		d.Note = "relay code is the per-CPU kworkers' CPU time (sk_psock_backlog), " +
			"over the baseline's, less the extra legs and wake-ups it carries"
	case p.RelayCPUUs != nil:
		// The extra legs' kernel path runs in the relay's own read and
		// write calls, and its switches are in its CPU time (carved).
		d.RelayCode = max(0, d.RelayCode-d.Kernel-carved(p, d.Method, m))
		if p.Relay == Sockmap {
			why := "kworkers not read"
			if p.Kworkers != nil && p.Kworkers.Error != "" {
				why = p.Kworkers.Error
			}
			d.Note = "relay code is hoprelay's own CPU, not the kworkers' that carry the hop (" + why + "): the hop's work is in the residual"
		}
	}
	if e, why := endpoints(p, base, d.Method); why != "" {
		d.Note = joinNote(d.Note, why)
	} else {
		d.Endpoints = &e
		d.Residual -= e
		if base != nil && p.LatencyUs.Avg > 0 && base.LatencyUs.Avg > 0 {
			x := p.LatencyUs.Avg - base.LatencyUs.Avg - p.AddedUs.P50
			d.MeanExcess = &x
			d.Residual += x
		}
	}
	d.Residual += p.AddedUs.P50 - d.RelayCode - d.Wakeups - d.Kernel
	return d
}

// carved is the part of a path's wake-ups (as decompose priced them, by
// method) that its relay's CPU time already holds, and that comes out of
// the relay code so as not to count twice.
//
// The scheduler charges a task from the moment it is picked to the
// moment the next one is (update_curr, kernel/sched/fair.c), so a task
// that runs on a CPU it shares carries one whole switch per run (the
// second half of the switch into it, the first half of the switch out of
// it) and its wake-up of the next (try_to_wake_up): on one CPU the tasks'
// CPU time is all of its time: packed on one CPU, client, server and
// relay (processes, and the kworkers for sockmap) sum to the wall time
// per request (docs/measurements.md, "Explaining a hop"). A
// same-CPU wake-up is such a switch, and is carved from the relay's time.
// A cross-CPU one is mostly not CPU time (the IPI, the idle exit of the
// woken CPU) and is added on top; so are the stamped wake-ups
// (timestamps), which are taken only where every one crosses CPUs.
//
// A packed hop adds 2 same-CPU wake-ups per request and hop, all carved;
// a spread one, none. Otherwise the hop's same-CPU edges over the direct
// path's are: client to relay, relay to relay, relay to server, one each
// way.
func carved(p PathResult, method string, m *machine.Machine) float64 {
	if method != "probe" {
		return 0
	}
	client, relay, server := p.Placement[roles.Client], p.Placement[roles.Relay], p.Placement[roles.Server]
	same := func(a, b string) float64 {
		if a == b && singleCPU(a) {
			return 1
		}
		return 0
	}
	edges := same(client, relay) + float64(p.Hops-1)*same(relay, relay) + same(relay, server) - same(client, server)
	return 2 * max(0, edges) * m.Wake.SameCPU
}

// endpoints is what p's client and server ran per request beyond its
// baseline's, or why that is not known or not added.
//
// It is added only where every wake-up of the path and of its baseline
// stays on one CPU, as a sockmap hop's do. A cross-CPU wake-up is priced
// at the probe's constant, which is wall time: the woken thread's way out
// of its wait is in it, and that is CPU time the woken thread is charged.
// Spread, the endpoints' CPU per request grows by about one cross-CPU
// wake-up for each of the two wake-ups that now cross CPUs, as the relay's
// does for its two, and each lies within the probe's cross-CPU wake-up:
// adding them on top would count them twice (docs/measurements.md,
// "Explaining a hop").
func endpoints(p PathResult, base *PathResult, method string) (float64, string) {
	switch {
	case p.Relay != Sockmap && (method != "probe" || !sameCPU(p)):
		return 0, "endpoints' CPU not added: across CPUs it is in the wake-ups"
	case p.Endpoints == nil || p.Endpoints.Error != "":
		why := "not read"
		if p.Endpoints != nil {
			why = p.Endpoints.Error
		}
		return 0, "endpoints' CPU not measured (" + why + "): it is in the residual"
	case base == nil:
		return 0, "endpoints' CPU not measured: no direct baseline"
	case base.Endpoints == nil || base.Endpoints.Error != "":
		return 0, "endpoints' CPU not measured on the direct baseline: it is in the residual"
	}
	e, b := p.Endpoints, base.Endpoints
	return (e.ClientCPUUs - b.ClientCPUUs) + (e.ServerCPUUs - b.ServerCPUUs), ""
}

// sameCPU says whether every wake-up of p and of its direct baseline
// (client, relays, server, one CPU each) stays on one CPU.
func sameCPU(p PathResult) bool {
	client, relay, server := p.Placement[roles.Client], p.Placement[roles.Relay], p.Placement[roles.Server]
	return singleCPU(client) && client == relay && relay == server
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// stamped says whether p's wake-ups are taken from the kernel's receive
// stamps: the relays stamped both directions (TCP legs on both sides of an
// event-loop relay: relay_wake_us), the client stamped its responses on
// this path and on its baseline (a TCP client leg: client_wake_us), and
// every wake-up so stamped on the path crossed CPUs -- one relay, on a CPU
// of its own, away from the client and from the server. A stamp of a
// wake-up on a shared CPU is not its cost (see stampedWakeups): such a
// path is priced at the probe's constants.
func stamped(p PathResult, base *PathResult) bool {
	if p.RelayWakeUs == nil || p.ClientWakeUs == nil || base == nil || base.ClientWakeUs == nil || p.Hops != 1 {
		return false
	}
	client, relay, server := p.Placement[roles.Client], p.Placement[roles.Relay], p.Placement[roles.Server]
	return crosses(client, relay) && crosses(server, relay)
}

// crosses says whether a wake-up between CPUs a and b certainly crosses
// CPUs: each is one CPU, and they differ.
func crosses(a, b string) bool { return singleCPU(a) && singleCPU(b) && a != b }

// stampedWakeups is the wake-ups a one-hop path adds per request, from the
// kernel's receive stamps where they measure a wake-up: the relay's two
// (relay_wake_us), plus the change in the client's against its direct
// baseline, plus the change in the server's, which is not stamped (the
// responder reads without stamps) and is priced at the probe's constants.
//
// What a stamp includes: the kernel stamps the bytes in the sender's
// context (loopback's netif_rx, inside the sender's write), and the delay
// runs to the reader's read returning. Across CPUs, the reader asleep on
// its own CPU, that is the wake-up proper: the IPI, the idle exit (the
// cpuidle governor's), the switch. On a CPU the reader shares with the
// sender it is something else: the reader cannot run before the sender
// leaves the CPU, so the delay holds the rest of the sender's write and
// whatever the sender runs until it sleeps (a Go sender's scheduler looks
// for work before it parks): the sender's tail, its own CPU time, and then
// the switch. On one CPU, per request, with t a component's tail and s a
// switch:
//
//	                  direct            through a relay
//	server woken by   client: t_c + s   relay: t_r + s     (not stamped)
//	relay woken by                      client and server: t_c + t_s + 2s (relay_wake_us)
//	client woken by   server: t_s + s   relay: t_r + s     (client_wake_us)
//
// relay_wake_us + client_wake_us (path) - client_wake_us (direct) is then
// t_c + t_r + 2s: taking the client's direct wake-up off removes the
// server's tail, but the client's tail stays, though the direct path pays
// it too (in the server's wake-up, which no stamp measures), and t_r is
// the relay's own CPU time, already in the relay code. What the hop adds
// in wake-ups proper is the 2s alone, and no stamp tells s from a tail:
// on a shared CPU the probe's same-CPU constant (a waker with no tail to
// speak of) prices it, and the tails stay where they belong, in the
// relay's code or in both round trips. (Priced by the stamped sum, a
// packed hop left a negative residual as large as itself: the tails
// counted twice; docs/measurements.md, "Explaining a hop".)
//
// Across CPUs the tails drop out of the stamps, which are the wake-ups
// the hop adds: the relay woken twice, the client woken by the relay
// rather than by the server. The baseline's client wake-up is taken off
// as stamped when it crossed CPUs too, else at the probe's same-CPU
// constant (its stamp would be the server's tail); likewise the server,
// woken by the relay rather than by the client, unstamped, at the probe's
// constants. With client, relay and server on three CPUs this is
// relay_wake_us + client_wake_us (path) - client_wake_us (direct).
func stampedWakeups(p, base PathResult, m *machine.Machine) float64 {
	relay, server := p.Placement[roles.Relay], p.Placement[roles.Server]
	bc, bs := base.Placement[roles.Client], base.Placement[roles.Server]
	direct := wake(m, bs, bc)
	if crosses(bs, bc) {
		direct = *base.ClientWakeUs
	}
	return *p.RelayWakeUs + *p.ClientWakeUs - direct + wake(m, relay, server) - wake(m, bc, bs)
}

// wake is the one-way wake-up of a thread on CPUs b by one on CPUs a: the
// same-CPU constant when both are the same single CPU, else the
// cross-CPU one (the same-CPU one on a machine that has no second CPU).
func wake(m *machine.Machine, a, b string) float64 {
	if a == b && singleCPU(a) {
		return m.Wake.SameCPU
	}
	if m.Wake.CrossCPU == 0 {
		return m.Wake.SameCPU
	}
	return m.Wake.CrossCPU
}

// Measured says whether the relay code is a measurement rather than left
// in the residual.
func (d Decomposition) Measured() bool { return !strings.HasPrefix(d.Note, "relay code not measured") }

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

package relay

import (
	"time"
)

// Wake names how an event loop waits for its next event when neither Spin
// nor BusyPoll says.
type Wake string

const (
	// WakeAuto, the default, picks from the CPUs the loop may run on:
	// WakeAdaptive on AdaptiveCPUs or more, WakeSleep on fewer, where the
	// loop shares its CPU with its client and server (packed, a loop that
	// polls keeps the peer whose reply it waits for off the CPU) or, on 2
	// or 3, polls on the CPU one of them needs, and every spin is a turn
	// that peer waits for (docs/measurements.md, "Wake strategies").
	WakeAuto Wake = "auto"
	// WakeSleep sleeps in epoll_wait as soon as no event is ready.
	WakeSleep Wake = "sleep"
	// WakeAdaptive polls for up to AdaptiveSpin after each event before
	// it sleeps, for as long as such spins go on catching the next event
	// (the peer answers within the spin, so the loop pays no wake-up);
	// when they stop paying it sleeps at once, and tries a spin again now
	// and then.
	WakeAdaptive Wake = "adaptive"
)

// StrategyOwn is WakeAuto's strategy for a loop allowed one CPU: adaptive
// while the CPU is its own, asleep at once while another task runs there.
// Spread, the relay alone on its CPU, the watched loop takes most of what
// spinning saves in wake-ups at a fraction of spinning's CPU, since it
// stops polling once a poll no longer catches the next event; packed, the
// loop's CPU is its client's and server's, and the loop sleeps
// (docs/measurements.md, "Wake strategies").
const StrategyOwn = "adaptive while its CPU is its own"

// AdaptiveCPUs is the fewest CPUs on which WakeAuto polls: room for the
// loop's own beside a client's and a server's, and one more. Not measured
// on a machine that large yet: on 2 CPUs polling lost.
const AdaptiveCPUs = 4

// AdaptiveSpin is how long a WakeAdaptive loop polls after an event: a
// loopback peer's turnaround (sockperf's server, a client sending its next
// statement) fits in it, a database's query does not, so spins after a
// statement sent upstream miss and the score stops them.
const AdaptiveSpin = 50 * time.Microsecond

// OwnSpin is how long a loop polls after an event while its CPU is its
// own (StrategyOwn). Nothing else wants that CPU, so a longer poll costs
// no other task its turn: it only keeps the loop awake through the slower
// turnarounds of its peers, where an AdaptiveSpin poll ran out and the
// next message paid an idle exit. The CPU per round trip does not grow
// with it: the poll ends with the message it catches (docs/measurements.md,
// "Wake strategies").
const OwnSpin = 200 * time.Microsecond

// OwnWindow is how often a pinned loop under WakeAuto judges whether its
// CPU is its own; OwnMaxWait is how long, against the time it ran in that
// window, the loop's thread may have spent runnable but waiting for its
// CPU for it still to count so. Against the time it ran, not the window's:
// a window mostly idle (a relay started just before its traffic, packed
// beside its client and server) otherwise counted as its own, however
// often the loop waited behind them while it worked, and the loop polled
// on their CPU for the next window. Packed, a loop waits for its CPU most
// of the time it runs; spread, hardly at all, whether it sleeps or polls:
// OwnMaxWait sits far from both (docs/measurements.md, "Wake strategies").
const (
	OwnWindow  = 100 * time.Millisecond
	OwnMaxWait = 0.1
)

// WakeRule is the rule by which a relay's loops wait as they do, which
// the command that writes the stats (hoprelay) says in wake_why.
type WakeRule int

// The rules chooseWake applies, in its order, and the router's.
const (
	WakeRuleNone   WakeRule = iota // no loops of their own
	WakeBySpin                     // --spin: polls with a zero timeout
	WakeByBusyPoll                 // --busy-poll D: polls D after each event
	WakeBySleep                    // --wake sleep
	WakeByAdaptive                 // --wake adaptive: polls AdaptiveSpin while that catches the next event
	// WakeAutoOwn: auto on one CPU, adaptive (OwnSpin) while the loop's
	// CPU is its own by OwnWindow and OwnMaxWait, asleep while not.
	WakeAutoOwn
	WakeAutoFew  // auto on fewer than AdaptiveCPUs CPUs: sleeps
	WakeAutoMany // auto on AdaptiveCPUs or more: adaptive (AdaptiveSpin)
	WakeRouter   // the router's loops sleep in epoll_wait
)

// wakeChoice is the strategy a relay's loops run, and by which rule.
type wakeChoice struct {
	Strategy string // "sleep", "spin", "busy-poll " and its duration, "adaptive" or "adaptive while its CPU is its own"
	Rule     WakeRule
	CPUs     int // the CPUs the loops may run on, as the auto rules read them
	adaptive bool
	// spin is how long an adaptive loop polls after an event: AdaptiveSpin,
	// or OwnSpin where it watches its CPU.
	spin time.Duration
	// watch: the loop, allowed one CPU, polls as adaptive does while that
	// CPU is its own and sleeps while it is not (cpuWatch, own_linux.go).
	watch bool
}

// chooseWake resolves c's wait strategy for loops that may run on cpus
// CPUs (the loop thread's affinity mask: --cpus pins each to one).
func chooseWake(c Config, cpus int) wakeChoice {
	switch {
	case c.Spin:
		return wakeChoice{Strategy: "spin", Rule: WakeBySpin}
	case c.BusyPoll > 0:
		return wakeChoice{Strategy: "busy-poll " + c.BusyPoll.String(), Rule: WakeByBusyPoll}
	case c.Wake == WakeSleep:
		return wakeChoice{Strategy: "sleep", Rule: WakeBySleep}
	case c.Wake == WakeAdaptive:
		return wakeChoice{Strategy: "adaptive", Rule: WakeByAdaptive, adaptive: true, spin: AdaptiveSpin}
	case cpus <= 1:
		return wakeChoice{Strategy: StrategyOwn, Rule: WakeAutoOwn, CPUs: cpus, watch: true, spin: OwnSpin}
	case cpus < AdaptiveCPUs:
		return wakeChoice{Strategy: "sleep", Rule: WakeAutoFew, CPUs: cpus}
	}
	return wakeChoice{Strategy: "adaptive", Rule: WakeAutoMany, CPUs: cpus, adaptive: true, spin: AdaptiveSpin}
}

// spinScore decides, wake by wake, whether an adaptive loop's spin pays.
// A spin that caught the next event counts +1, one that ran out counts -2
// (it burnt its whole poll for nothing): a loop spins while the score is not
// negative, so spins must catch at least two events in three. Once it has
// stopped, every probeEvery-th sleep is tried as a spin again, so that a
// peer that has become quick is noticed.
type spinScore struct {
	score  int
	sleeps int
}

const (
	scoreMax   = 8
	scoreMin   = -8
	probeEvery = 64
)

// spin reports whether the loop should spin after the events it has just
// handled.
func (s *spinScore) spin() bool {
	if s.score >= 0 {
		return true
	}
	s.sleeps++
	if s.sleeps >= probeEvery {
		s.sleeps = 0
		return true
	}
	return false
}

// hit counts a spin that caught an event; after a probe it starts the
// spins again.
func (s *spinScore) hit() {
	if s.score < 0 {
		s.score = 0
		return
	}
	s.score = min(s.score+1, scoreMax)
}

func (s *spinScore) miss() { s.score = max(s.score-2, scoreMin) }

package relay

import (
	"fmt"
	"slices"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/roles"
)

// Engine names how a relay moves bytes.
type Engine string

const (
	// EngineGoroutine runs two goroutines per connection and lets the Go
	// runtime splice(2) where it can (TCP→TCP, UNIX→TCP, TCP→UNIX).
	EngineGoroutine Engine = roles.Goroutine
	// EngineEpoll runs Workers event loops, each a locked OS thread with its
	// own epoll set, reading into a buffer and writing it out.
	EngineEpoll Engine = roles.Epoll
	// EngineSplice is EngineEpoll moving bytes socket→pipe→socket with
	// splice(2), so the payload never enters user space.
	EngineSplice Engine = roles.Splice
	// EngineSockmap puts both sockets of a connection into a BPF sockmap
	// whose stream-verdict program redirects each direction to the other
	// socket in the kernel; user space only accepts, connects and passes
	// FINs and resets on. TCP legs only (see sockmap_linux.go).
	EngineSockmap Engine = roles.Sockmap
)

// Lock names the locking design of the event-loop engines, for
// lock-contention comparisons under a thread sweep.
type Lock string

const (
	LockNone   Lock = "none"   // loops share nothing
	LockConn   Lock = "conn"   // a mutex per connection, held while a chunk moves
	LockGlobal Lock = "global" // one mutex for every loop, held while a chunk moves: mysql-proxy 0.7/0.8's giant lock
)

// DefaultBuffer is the per-direction buffer (and starting pipe) size when
// Config names none: 64 KiB, Linux's default pipe capacity.
const DefaultBuffer = 64 << 10

// DefaultGrace is how long Serve waits for live connections to finish after
// its context ends, when Config names no Grace.
const DefaultGrace = 5 * time.Second

// Config says how a Relay runs. The zero value is valid: the goroutine
// engine, one loop where loops apply, no pinning, no locks, 64 KiB buffers,
// no connection limit, no timing, a 5 s grace period, round-robin over
// several upstreams with a 2 s retry, no logging.
type Config struct {
	Engine   Engine        // "" = EngineGoroutine
	Workers  int           // event loops for epoll and splice; 0 = 1
	Spin     bool          // loops poll with a zero timeout instead of sleeping (burns a core)
	BusyPoll time.Duration // loops poll without sleeping for this long after each event; 0 = as Wake says
	Wake     Wake          // how loops wait when neither Spin nor BusyPoll is set; "" = WakeAuto (wake.go)
	Slice    time.Duration // the time slice each loop thread asks the kernel for (slice.go); 0 = DefaultSlice, <0 = the kernel's default
	CPUs     []int         // CPUs the loop threads are pinned to, loop i on CPUs[i%len]; epoll and splice only
	Lock     Lock          // "" = LockNone
	Buffer   int           // bytes per direction; 0 = DefaultBuffer (sockmap: the kernel holds up to 16× this per direction; splice: the pipe a direction starts with, grown to up to 1 MiB once it streams)
	MaxConns int           // live connections beyond this are refused with a log line; 0 = no bound (sockmap: DefaultSockmapConns)
	NoBatch  bool          // epoll: one recvfrom and one sendto per message, never batched in an io_uring_enter (batch_linux.go)
	Stats    bool          // time every chunk's residence in the relay (costs two clock reads per chunk); off for sockmap
	Grace    time.Duration // how long shutdown waits for live connections; 0 = DefaultGrace, <0 = none
	Balance  Balance       // how each connection picks one of several upstreams; "" = BalanceRoundRobin
	Retry    time.Duration // how long an upstream that failed a connect is skipped (several upstreams); 0 = DefaultRetry
	Logf     func(format string, args ...any)

	// Route is what the relay reads of what it moves: "" = RouteBytes,
	// every engine; RouteConn and RouteRW read MySQL (engine epoll, the
	// default for them), logging clients in with Users (name to
	// password), the accounts the router uses towards its upstreams too.
	Route Route
	Users map[string]string
}

// Validate reports the first field that makes no sense, naming it and its
// value; New runs it too.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults fills the documented defaults and rejects what makes no
// sense, naming the field and the value.
func (c Config) withDefaults() (Config, error) {
	if err := c.checkRoute(); err != nil {
		return c, err
	}
	if c.Engine == "" {
		c.Engine = EngineGoroutine
	}
	if !slices.Contains(Engines, c.Engine) {
		return c, fmt.Errorf("relay: engine %q: want %s", c.Engine, EngineNames())
	}
	if err := oneOf("lock", &c.Lock, Locks); err != nil {
		return c, err
	}
	if c.Workers < 0 || c.Workers > 1024 {
		return c, fmt.Errorf("relay: workers %d: want 1..1024", c.Workers)
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.Buffer < 0 || (c.Buffer > 0 && c.Buffer < 512) || c.Buffer > 1<<30 {
		return c, fmt.Errorf("relay: buffer %d: want 512 bytes..1 GiB", c.Buffer)
	}
	if c.Buffer == 0 {
		c.Buffer = DefaultBuffer
	}
	if c.MaxConns < 0 {
		return c, fmt.Errorf("relay: max-conns %d: want 0 (no bound) or more", c.MaxConns)
	}
	for _, cpu := range c.CPUs {
		if cpu < 0 || cpu >= 1<<16 {
			return c, fmt.Errorf("relay: cpus: bad CPU %d", cpu)
		}
	}
	if why, ok := noLoopReasons[c.Engine]; ok {
		if err := c.checkNoLoop(why); err != nil {
			return c, err
		}
	}
	if c.Engine == EngineSockmap {
		if c.MaxConns > 1<<20 {
			return c, fmt.Errorf("relay: max-conns %d: the sockmap engine's maps hold at most %d connections", c.MaxConns, 1<<20)
		}
		// The maps are created once, two entries per connection.
		if c.MaxConns == 0 {
			c.MaxConns = DefaultSockmapConns
		}
		// No chunk passes through user space to be timed.
		c.Stats = false
	}
	if c.Slice > 0 && (c.Slice < affinity.MinSlice || c.Slice > affinity.MaxSlice) {
		return c, fmt.Errorf("relay: slice %v: want 0 (the kernel's default) or %v..%v", c.Slice, affinity.MinSlice, affinity.MaxSlice)
	}
	if c.BusyPoll < 0 || c.BusyPoll > time.Second {
		return c, fmt.Errorf("relay: busy-poll %v: want 0..1s", c.BusyPoll)
	}
	if err := oneOf("wake", &c.Wake, []Wake{WakeAuto, WakeSleep, WakeAdaptive}); err != nil {
		return c, err
	}
	if c.Wake != WakeAuto && (c.Spin || c.BusyPoll > 0) {
		return c, fmt.Errorf("relay: wake %s: spin and busy-poll say how loops wait already", c.Wake)
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	if c.Balance == "" {
		c.Balance = BalanceRoundRobin
	}
	if !slices.Contains(Balances, c.Balance) {
		return c, fmt.Errorf("relay: balance %q: want %s", c.Balance, roles.OrList(Balances))
	}
	if c.Retry < 0 {
		return c, fmt.Errorf("relay: retry %v: want 0 (the default, %v) or more", c.Retry, DefaultRetry)
	}
	if c.Retry == 0 {
		c.Retry = DefaultRetry
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c, nil
}

// noLoop says, option by option, why an engine without event loops of its
// own has no use for the options that tune a loop.
type noLoop struct{ cpus, spin, lock, workers, slice string }

// noLoopReasons holds the engines without event loops of their own.
var noLoopReasons = map[Engine]noLoop{
	EngineGoroutine: {
		cpus:    "the goroutine engine has no threads of its own to pin (use taskset, or engine epoll)",
		spin:    "needs engine epoll or splice (the goroutine engine waits in Go's netpoller)",
		lock:    "needs engine epoll or splice",
		workers: "needs engine epoll or splice (the goroutine engine uses GOMAXPROCS)",
		slice:   "needs engine epoll or splice (the goroutine engine's goroutines move between the runtime's threads)",
	},
	EngineSockmap: {
		cpus:    "the sockmap engine moves bytes in the kernel, no relay thread to pin",
		spin:    "the sockmap engine has no loop that polls per message",
		lock:    "the sockmap engine takes no lock per message",
		workers: "the sockmap engine runs one thread for accepts and closes",
		slice:   "the sockmap engine moves bytes in the kernel, no relay thread to schedule",
	},
}

// checkNoLoop refuses the first loop option c sets, with the engine's reason.
func (c Config) checkNoLoop(why noLoop) error {
	switch {
	case len(c.CPUs) > 0:
		return fmt.Errorf("relay: cpus %v: %s", c.CPUs, why.cpus)
	case c.Spin || c.BusyPoll != 0 || (c.Wake != "" && c.Wake != WakeAuto):
		return fmt.Errorf("relay: spin/busy-poll/wake: %s", why.spin)
	case c.Lock != LockNone:
		return fmt.Errorf("relay: lock %s: %s", c.Lock, why.lock)
	case c.Workers != 1:
		return fmt.Errorf("relay: workers %d: %s", c.Workers, why.workers)
	case c.Slice != 0:
		return fmt.Errorf("relay: slice %v: %s", c.Slice, why.slice)
	}
	return nil
}

// oneOf fills an empty *v with want[0], the default, and refuses a value
// that is none of want, as the engine is refused.
func oneOf[T ~string](option string, v *T, want []T) error {
	if *v == "" {
		*v = want[0]
	}
	if !slices.Contains(want, *v) {
		return fmt.Errorf("relay: %s %q: want %s", option, *v, roles.OrList(want))
	}
	return nil
}

package driver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/probe"
	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/roles"
)

// Config is one hopbench invocation. The zero value is valid: every unset
// field takes the default named in its comment, and DefaultConfig is what
// `make bench` runs.
type Config struct {
	Backend Backend // zero: the embedded responder
	// Backends, when it has several, are the servers of a sweep (Sweep):
	// Backend is the first of them. nil for one backend.
	Backends []Backend
	// Replicas are the servers a mysql-rw path's router reads from (its
	// primary is the backend); none: the router has the backend alone.
	Replicas []Backend
	// Instances is how many clients a sweep runs at once (RonDB's
	// SYSBENCH_INSTANCES), instance i against backend i mod their number;
	// 0 or 1 for one. Above 1, or with several Backends or SERVER_HOST
	// hosts, the run is a sweep rather than the path matrix.
	Instances int
	// Proto is the embedded responder's protocol, "" for EmbeddedProto. A
	// real backend is always mysql.
	Proto      string
	Command    string          // mysql workload; "" for point-select
	User       string          // embedded mysql credentials; "" for hoplat
	Password   string          // "" for hoplat
	Relays     []hop.Relay     // relays to include; nil for all of Relays
	Transports []hop.Transport // client legs; nil for tcp and unix
	Threads    []int           // client connections; nil for 1
	Time       time.Duration   // per path per round, the shortest a sized round runs; 0 for 1s
	// RoundRequests sizes each stage's rounds from what a request costs:
	// a calibration run before its rounds measures one path's rate, and
	// the rounds run long enough to hold this many of its requests, Time
	// at the least. 0 sizes nothing: every round runs Time.
	RoundRequests int
	// Budget bounds the timed rounds' total length when sizing lengthens
	// them (warm-ups included); 0 for no bound.
	Budget  time.Duration
	Warmup  time.Duration // per pingpong run, before timing; 0 for none
	Rounds  int           // 0 for 5
	Discard int           // leading rounds dropped as warm-up; 0 keeps all
	Hops    []int         // a chain sweep instead of the default paths; nil for none
	// ServiceTimes, Sizes and Rows sweep the embedded backend; each
	// combination is a stage with a topology of its own. nil for the
	// responder's default.
	ServiceTimes []time.Duration
	Sizes        []int
	Rows         []int
	// Placement gives the CPUs of each component — "client" (pingpong),
	// "relay" (every relay process), "server" (the embedded responder) —
	// applied as each process starts; the zero value pins nothing.
	Placement affinity.Placement
	// Regimes are the placements every path is measured under, each a
	// stage of its own; nil for Placement's one regime when it is set,
	// else packed and spread (DefaultRegimes). A Regime named none pins
	// nothing.
	Regimes []Regime
	// BackendCPUs pins a backend that hopbench does not start, running on
	// this machine, for the run (every thread of its process; the mask it
	// had is put back at the end). The zero value leaves it where it is,
	// and the report says where that is.
	BackendCPUs affinity.CPUSet
	Nice        int    // the embedded server's niceness
	RelayLock   string // hoprelay --lock; "" for its default
	// ConnectTime is how long each path's connect-only series runs after
	// its rounds (mysql): many set-ups, for a p50 and p99 of a
	// connection's cost; 0 for 100 ms (a few hundred set-ups of a point
	// select path), negative for none.
	ConnectTime time.Duration
	// Resolve bounds the time a run against a real backend spends
	// lengthening its rounds until every relay path's added p50 interval
	// excludes zero (resolve.go); 0 runs once, as asked.
	Resolve time.Duration
	Stats   bool // collect hoprelay --stats, the relay code of a hop's split (DefaultConfig does)
	// Trace runs one more round of every path traced (package tracer),
	// whose requests' critical paths split each hop (method "trace").
	// Where the tracer cannot run (no BTF, no CAP_BPF) the run says why
	// and splits as without it. DefaultConfig traces.
	Trace    bool
	TempRoot string  // parent of the temp dir; "" for os.TempDir
	Locate   Locator // nil for Locate
	// Progress takes the run's events as they happen (package event:
	// rounds begun and ended, skips, warnings, ...), for present.Progress
	// to say; nil for none.
	Progress event.Sink
	Env      func() affinity.Env // describes the machine; nil for affinity.CollectEnv
	// Probe measures the machine constants a hop is explained with (its
	// wake-ups and loopback legs), once, before the first round; nil for
	// probe.Run with its defaults, about two seconds.
	Probe func(context.Context) (machine.Machine, error)
	// Hosts places the components on a topology file's hosts, brought up
	// for the run and removed at its end; nil runs every one here on
	// loopback.
	Hosts *hosts.TopologyFile
	// Proxies are the user's own proxies (--proxy), a path each beside
	// the relays: one running already, or started per stage from a
	// command template (Proxy).
	Proxies []Proxy
}

// DefaultConfig is the default run: every path in two placement regimes
// (packed and spread), 7 rounds of 0.2 s per path with the first
// discarded, each after 50 ms of untimed warm-up, 1 thread, point-select on
// the embedded MySQL responder (64-byte echo when EmbeddedProto is echo).
// Under two minutes on two cores with a cold build before it. Six kept
// rounds, not four of 0.5 s: a hop's figure is the median of its paired
// rounds, and six is the fewest whose [min, max] covers that median 95% of
// the time; a round of 0.2 s still holds over a thousand round trips of
// the slowest default path spread over two CPUs, tens of thousands packed
// (docs/measurements.md, "Default round length").
func DefaultConfig() Config {
	return Config{
		Command: "point-select",
		Threads: []int{1},
		Time:    200 * time.Millisecond,
		Warmup:  50 * time.Millisecond,
		Rounds:  7,
		Discard: 1,
		// A round's p50 should rest on a thousand requests: a point
		// select through a relay is tens to a hundred and some
		// microseconds, so 0.2 s holds that or more, but an oltp-ro
		// transaction against a database is
		// milliseconds, and rounds of 0.2 s would hold a hundred: round
		// sizing lengthens those.
		RoundRequests: 1000,
		Budget:        3 * time.Minute,
		// hoprelay's residence is the relay-code part of a hop's split.
		Stats: true,
		Trace: true,
	}
}

func (c Config) withDefaults() Config {
	if c.Proto == "" {
		c.Proto = EmbeddedProto
	}
	if !c.Backend.Embedded() {
		c.Proto = ProtoMySQL
	}
	if c.Command == "" {
		c.Command = "point-select"
	}
	if c.User == "" {
		c.User = "hoplat"
	}
	if c.Password == "" {
		c.Password = "hoplat"
	}
	if c.Relays == nil {
		c.Relays = hop.DefaultRelays
	}
	if c.Transports == nil {
		c.Transports = []hop.Transport{hop.TCP, hop.UNIX}
	}
	if c.Threads == nil {
		c.Threads = []int{1}
	}
	if c.Time == 0 {
		c.Time = time.Second
	}
	if c.Rounds == 0 {
		c.Rounds = 5
	}
	if c.ConnectTime == 0 {
		c.ConnectTime = 100 * time.Millisecond
	}
	if c.Proto == ProtoEcho && c.Sizes == nil {
		c.Sizes = []int{64}
	}
	if c.Locate == nil {
		c.Locate = Locate
	}
	if c.Progress == nil {
		c.Progress = discard{}
	}
	if c.Env == nil {
		c.Env = affinity.CollectEnv
	}
	if c.Probe == nil {
		c.Probe = func(ctx context.Context) (machine.Machine, error) { return probe.Run(ctx, probe.Options{}) }
	}
	return c
}

// Check reports a configuration that cannot run.
func (c Config) Check() error {
	c = c.withDefaults()
	switch {
	case c.Rounds < 1:
		return fmt.Errorf("driver: rounds %d: need at least 1", c.Rounds)
	case c.Discard < 0 || c.Discard >= c.Rounds:
		return fmt.Errorf("driver: discard %d of %d rounds: must keep at least one", c.Discard, c.Rounds)
	case c.Time < 0:
		return fmt.Errorf("driver: time %v: must be positive", c.Time)
	case c.RoundRequests < 0:
		return fmt.Errorf("driver: round requests %d: must not be negative", c.RoundRequests)
	case c.Budget < 0:
		return fmt.Errorf("driver: budget %v: must not be negative", c.Budget)
	case c.Proto != ProtoEcho && c.Proto != ProtoMySQL:
		return fmt.Errorf("driver: proto %q: want echo or mysql", c.Proto)
	case c.Proto == ProtoEcho && c.Rows != nil:
		return fmt.Errorf("driver: rows %v: rows shape mysql results; echo's payload is its size", c.Rows)
	case c.Backend.Embedded() && c.BackendCPUs.Len() > 0:
		return fmt.Errorf("driver: backend CPUs %s: they pin a real backend (--backend mysql://…); place the embedded one with --placement server=LIST", c.BackendCPUs)
	case !c.Backend.Embedded() && (c.ServiceTimes != nil || c.Rows != nil):
		return fmt.Errorf("driver: service time and rows shape the embedded backend, not %s", c.Backend)
	}
	for _, x := range c.Proxies {
		if x.Addr != nil && c.Backend.Embedded() {
			return fmt.Errorf("driver: proxy %s at %s: a running proxy relays to a server of its own, and the embedded backend is started afresh on a new port each stage: name that server with --backend mysql://…", x.Name, x.Addr)
		}
	}
	if len(c.Proxies) > 0 && len(c.Hops) > 0 {
		return fmt.Errorf("driver: proxies %s: a --hops sweep chains hoplat's own relays and socat; a proxy is one hop", c.Proxies[0].Name)
	}
	for i, x := range c.Proxies {
		for _, y := range c.Proxies[:i] {
			if x.Name == y.Name {
				return fmt.Errorf("driver: proxy %s given twice", x.Name)
			}
		}
	}
	for _, t := range c.Threads {
		if t < 1 {
			return fmt.Errorf("driver: threads %d: need at least 1", t)
		}
	}
	for _, h := range c.Hops {
		if h < 0 {
			return fmt.Errorf("driver: hops %d: must not be negative", h)
		}
	}
	// affinity accepts any component name; hopbench places three.
	for _, tok := range strings.Fields(c.Placement.String()) {
		name, _, ok := strings.Cut(tok, "=")
		if ok && name != roles.Client && name != roles.Relay && name != roles.Server {
			return fmt.Errorf("driver: placement %q: unknown component %q (want %s, %s or %s)",
				c.Placement, name, roles.Client, roles.Relay, roles.Server)
		}
	}
	return nil
}

// Paths is the matrix the configuration measures.
func (c Config) Paths() []hop.Path {
	c = c.withDefaults()
	if len(c.Hops) > 0 {
		return ChainPaths(c.Relays, c.Transports, c.Hops)
	}
	paths := DefaultPaths(c.Relays, c.Transports)
	// A proxy the user names runs whatever --paths says: naming it is
	// asking for it.
	for _, x := range c.Proxies {
		paths = append(paths, x.Path())
	}
	return paths
}

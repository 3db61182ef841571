package driver

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/results"
)

// Config is one hopbench invocation. The zero value is valid: every unset
// field takes the default named in its comment, and DefaultConfig is what
// `make bench` runs.
type Config struct {
	Backend Backend // zero: the embedded responder
	// Proto is the embedded responder's protocol, "" for EmbeddedProto. A
	// real backend is always mysql.
	Proto      string
	Command    string        // mysql workload; "" for point-select
	User       string        // embedded mysql credentials; "" for hoplat
	Password   string        // "" for hoplat
	Relays     []Relay       // relays to include; nil for all of Relays
	Transports []Transport   // client legs; nil for tcp and unix
	Threads    []int         // client connections; nil for 1
	Time       time.Duration // per path per round; 0 for 1s
	Warmup     time.Duration // per pingpong run, before timing; 0 for none
	Rounds     int           // 0 for 5
	Discard    int           // leading rounds dropped as warm-up; 0 keeps all
	Hops       []int         // a chain sweep instead of the default paths; nil for none
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
	Nice      int                // the embedded server's niceness
	RelayLock string             // hoprelay --lock; "" for its default
	Stats     bool               // collect hoprelay --stats
	TempRoot  string             // parent of the temp dir; "" for os.TempDir
	Locate    Locator            // nil for Locate
	Progress  io.Writer          // progress lines; nil for none
	Env       func() results.Env // describes the machine; nil for results.CollectEnv
}

// DefaultConfig is the default run: every path, 5 rounds of 1 s per path
// with the first discarded, 1 thread, point-select on the embedded MySQL
// responder (64-byte echo while EmbeddedProto is echo). About a minute on two
// cores.
func DefaultConfig() Config {
	return Config{
		Command: "point-select",
		Threads: []int{1},
		Time:    time.Second,
		Warmup:  100 * time.Millisecond,
		Rounds:  5,
		Discard: 1,
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
		c.Relays = Relays
	}
	if c.Transports == nil {
		c.Transports = []Transport{TCP, UNIX}
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
	if c.Proto == ProtoEcho && c.Sizes == nil {
		c.Sizes = []int{64}
	}
	if c.Locate == nil {
		c.Locate = Locate
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	if c.Env == nil {
		c.Env = results.CollectEnv
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
	case c.Proto != ProtoEcho && c.Proto != ProtoMySQL:
		return fmt.Errorf("driver: proto %q: want echo or mysql", c.Proto)
	case !c.Backend.Embedded() && (c.ServiceTimes != nil || c.Rows != nil):
		return fmt.Errorf("driver: service time and rows shape the embedded backend, not %s", c.Backend)
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
	return nil
}

// Paths is the matrix the configuration measures.
func (c Config) Paths() []Path {
	c = c.withDefaults()
	if len(c.Hops) > 0 {
		return ChainPaths(c.Relays, c.Transports, c.Hops)
	}
	return DefaultPaths(c.Relays, c.Transports)
}

// Run builds each stage's topology, runs every path in interleaved rounds,
// stops everything, and explains the result. Cancelling ctx stops the run
// at once, every process with it; Run then returns ctx's error.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	return (&bench{measure: RunClient}).run(ctx, cfg)
}

// bench is one run; measure is swapped for a stand-in in tests.
type bench struct {
	measure func(ctx context.Context, argv, env []string, cpus affinity.CPUSet) (Sample, error)
}

func (b *bench) run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	began := time.Now()
	pingpong, err := cfg.Locate("pingpong")
	if err != nil {
		return nil, err
	}
	paths := cfg.Paths()
	stages := Stages(cfg.ServiceTimes, cfg.Sizes, cfg.Rows)
	progress := newProgress(cfg.Progress, len(stages)*cfg.Rounds*len(paths)*len(cfg.Threads), cfg.Time+cfg.Warmup)
	var all []Series
	var skipped []Skip
	pinning := map[string]string{}
	for si, st := range stages {
		series, skips, pins, err := b.runStage(ctx, cfg, pingpong, paths, st, si, len(stages), progress)
		if err != nil {
			return nil, err
		}
		all = append(all, series...)
		for _, s := range skips {
			if !slices.Contains(skipped, s) {
				skipped = append(skipped, s)
			}
		}
		for k, v := range pins {
			pinning[k] = v
		}
	}
	results, chains := Analyze(all, cfg.Discard, cfg.Hops)
	rep := &Report{
		Schema:  Schema,
		Config:  reportConfig(cfg, paths),
		Env:     cfg.Env(),
		Paths:   results,
		Chains:  chains,
		Skipped: skipped,
		Elapsed: time.Since(began).Seconds(),
	}
	if len(pinning) > 0 {
		rep.Env.Pinning = pinning
	}
	if rep.Skipped == nil {
		rep.Skipped = []Skip{}
	}
	rep.Verdicts = Verdicts(rep)
	return rep, nil
}

func (b *bench) runStage(ctx context.Context, cfg Config, pingpong string, paths []Path, st Stage, si, nstages int, progress *progress) (_ []Series, _ []Skip, _ map[string]string, err error) {
	topo, err := Build(ctx, TopologySpec{
		TempRoot: cfg.TempRoot,
		Backend:  cfg.Backend,
		Responder: Responder{
			Proto: cfg.Proto, ServiceTime: st.ServiceTime, Rows: st.Rows, RowBytes: rowBytes(cfg, st),
			User: cfg.User, Password: cfg.Password,
		},
		Nice:      cfg.Nice,
		Paths:     paths,
		Relay:     HopRelay{Lock: cfg.RelayLock},
		Stats:     cfg.Stats,
		Placement: cfg.Placement,
		Locate:    cfg.Locate,
	})
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if stopErr := topo.Stop(); err == nil && stopErr != nil && ctx.Err() == nil {
			err = stopErr
		}
	}()
	var live []Path
	for _, p := range paths {
		if _, ok := topo.Entries[p]; ok {
			live = append(live, p)
		}
	}
	for _, s := range topo.Skipped {
		progress.skip(s)
	}
	progress.drop((len(paths) - len(live)) * len(cfg.Threads) * cfg.Rounds)
	cells := Cells(live, cfg.Threads)
	series := make([]Series, len(cells))
	for i, c := range cells {
		series[i] = Series{Stage: st, Cell: c, Samples: make([]Sample, cfg.Rounds)}
	}
	client := clientFor(cfg, st)
	clientCPUs, _ := cfg.Placement.For(ComponentClient)
	for _, step := range Schedule(len(cells), cfg.Rounds) {
		c := cells[step.Cell]
		progress.begin(si, nstages, step, cfg.Rounds, cfg.Discard, len(cells), c)
		smp, err := b.measure(ctx, client.Args(pingpong, topo.Entries[c.Path], c.Threads), client.Env(), clientCPUs)
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		if err != nil {
			smp = Sample{Failed: err.Error()}
		}
		series[step.Cell].Samples[step.Round] = smp
		progress.end(smp)
	}
	if cfg.Stats {
		// hoprelay writes its stats as it exits.
		if err := topo.stopProcesses(); err != nil {
			return nil, nil, nil, err
		}
		for i := range series {
			series[i].RelayUs = relayResidence(topo.Stats[series[i].Cell.Path])
		}
	}
	for _, s := range series {
		for _, smp := range s.Samples {
			if smp.CPUs != "" {
				topo.Pinning[ComponentClient] = smp.CPUs
			}
			for k, v := range smp.Pinning {
				topo.Pinning["client "+k] = v
			}
		}
	}
	return series, topo.Skipped, topo.Pinning, nil
}

func clientFor(cfg Config, st Stage) Client {
	c := Client{
		Proto: cfg.Proto, Command: cfg.Command, Time: cfg.Time, Warmup: cfg.Warmup,
	}
	if cfg.Proto == ProtoEcho {
		c.Size = st.Size
	}
	if cfg.Backend.Embedded() {
		c.User, c.Password = cfg.User, cfg.Password
	} else {
		c.User, c.Password, c.DB = cfg.Backend.User, cfg.Backend.Password, cfg.Backend.DB
	}
	return c
}

// rowBytes is the mysql responder's bytes per row: --size names it for
// mysql, since a result's size is rows times row bytes.
func rowBytes(cfg Config, st Stage) int {
	if cfg.Proto == ProtoMySQL {
		return st.Size
	}
	return 0
}

func reportConfig(cfg Config, paths []Path) ReportConfig {
	rc := ReportConfig{
		Backend: cfg.Backend.String(), Proto: cfg.Proto, Threads: cfg.Threads,
		TimeS: cfg.Time.Seconds(), WarmupS: cfg.Warmup.Seconds(), Rounds: cfg.Rounds, Discard: cfg.Discard,
		Hops: cfg.Hops, Sizes: cfg.Sizes, Rows: cfg.Rows, Placement: cfg.Placement.String(), Nice: cfg.Nice,
		RelayLock: cfg.RelayLock, Stats: cfg.Stats,
	}
	if cfg.Proto == ProtoMySQL {
		rc.Command = cfg.Command
	}
	for _, p := range paths {
		rc.Paths = append(rc.Paths, p.Name())
	}
	for _, d := range cfg.ServiceTimes {
		rc.ServiceTimesUs = append(rc.ServiceTimesUs, float64(d.Nanoseconds())/1e3)
	}
	return rc
}

// progress writes one line per pingpong run: where the run is and about how
// long is left, from the mean duration of the steps so far.
type progress struct {
	w       io.Writer
	total   int
	done    int
	nominal time.Duration
	spent   time.Duration
	began   time.Time
}

func newProgress(w io.Writer, total int, nominal time.Duration) *progress {
	return &progress{w: w, total: total, nominal: nominal}
}

// drop takes steps that will not run (skipped paths) out of the estimate.
func (p *progress) drop(steps int) { p.total -= steps }

func (p *progress) begin(stage, stages int, s Step, rounds, discard, cells int, c Cell) {
	p.began = time.Now()
	per := p.nominal
	if p.done > 0 {
		per = p.spent / time.Duration(p.done)
	}
	left := time.Duration(p.total-p.done) * per
	var where strings.Builder
	if stages > 1 {
		fmt.Fprintf(&where, "stage %d/%d ", stage+1, stages)
	}
	fmt.Fprintf(&where, "round %d/%d", s.Round+1, rounds)
	if s.Round < discard {
		where.WriteString(" (warm-up)")
	}
	// The line is finished by end with the step's figures, so that a
	// long --time shows what runs now and a short one reads as a log.
	fmt.Fprintf(p.w, "hopbench: %s  path %2d/%d %-22s threads %-3d  ~%s left ",
		where.String(), s.Cell+1, cells, c.Path.Name(), c.Threads, left.Round(time.Second))
}

func (p *progress) end(s Sample) {
	p.done++
	p.spent += time.Since(p.began)
	if s.Failed != "" {
		fmt.Fprintf(p.w, "-> failed: %s\n", s.Failed)
		return
	}
	fmt.Fprintf(p.w, "-> %.0f tps, p50 %s µs, p95 %s µs, %d errors\n", s.TPS, us(s.Latency.P50), us(s.Latency.P95), s.Errors)
}

func (p *progress) skip(s Skip) { fmt.Fprintf(p.w, "hopbench: skip %s: %s\n", s.Path, s.Reason) }

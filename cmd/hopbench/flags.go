package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/history"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/cmd/internal/usage"
	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/driver/settings"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/list"
	"github.com/hoplat/hoplat/internal/spell"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/present/load"
	"github.com/hoplat/hoplat/relay"
)

type options struct {
	cfg    driver.Config
	format string
	out    string
	wide   bool // the text report's full columns instead of 100
	// verbose selects the full text report (every table and verdict)
	// instead of the one-screen one.
	verbose bool
	// history is the file of this machine's runs ("" for none), and
	// command the flags that set what the run measures, which the
	// history matches runs by.
	history, command string
}

// HistoryEnv names the variable that sets --history's default; set and
// empty, no history is kept. The suite's tests, which run the same
// commands many times, set it empty.
const HistoryEnv = "HOPLAT_HISTORY"

func defaultHistory() string {
	if v, ok := os.LookupEnv(HistoryEnv); ok {
		return v
	}
	return history.DefaultFile()
}

// outputFlags set how a run is shown or kept, not what it measures: two
// runs that differ only in them are runs of the same command.
var outputFlags = map[string]bool{"format": true, "out": true, "wide": true, "quiet": true, "verbose": true, "history": true}

// measuredFlags is the flags given that set what the run measures, as
// name=value in name order: the command the history matches runs by.
func measuredFlags(fs *pflag.FlagSet) string {
	var parts []string
	fs.Visit(func(f *pflag.Flag) { // in lexical order
		if !outputFlags[f.Name] {
			parts = append(parts, "--"+f.Name+"="+f.Value.String())
		}
	})
	return strings.Join(append([]string{"hopbench"}, parts...), " ")
}

// parseFlags reads the command line; every error is a cli usage error
// naming the flag, and pflag.ErrHelp after printing the help.
func parseFlags(args []string) (options, error) {
	o, err := readFlags(args)
	if err != nil && err != pflag.ErrHelp {
		err = cli.Usage(err)
	}
	return o, err
}

func commandNames() string {
	names := make([]string, len(mysql.Commands))
	for i, c := range mysql.Commands {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// readFlags reads the command line, after the topology file's settings
// when --topology names one: the file's keys are parsed as the flags they
// stand for, ahead of the user's, so that a flag given overrides the file.
// A value the file sets that makes no sense is reported at its line.
func readFlags(args []string) (options, error) {
	path, err := topologyArg(args)
	if err != nil || path == "" {
		return parseArgs(args, err)
	}
	tp, err := settings.Read(path)
	if err != nil {
		return options{}, err
	}
	if _, err := parseArgs(tp.Args(), nil); err != nil {
		return options{}, fileError(tp, err)
	}
	o, err := parseArgs(append(tp.Args(), args...), nil)
	o.cfg.Hosts = tp.TopologyFile
	return o, err
}

// topologyArg is --topology's value, looked up before the flags are parsed
// since it decides what is parsed first.
func topologyArg(args []string) (string, error) {
	for i, a := range args {
		switch {
		case a == "--":
			return "", nil
		case a == "--topology":
			if i+1 == len(args) {
				return "", fmt.Errorf("flag needs an argument: --topology")
			}
			return args[i+1], nil
		case strings.HasPrefix(a, "--topology="):
			return strings.TrimPrefix(a, "--topology="), nil
		}
	}
	return "", nil
}

// fileError names the file and line of the key whose flag err is about, or
// at least the file.
func fileError(tp *settings.File, err error) error {
	msg, best := err.Error(), ""
	for flag := range settings.FlagKeys {
		if strings.Contains(msg, "--"+flag) && len(flag) > len(best) {
			best = flag
		}
	}
	if best == "" {
		return fmt.Errorf("topology %s: %w", tp.File, err)
	}
	key := settings.FlagKeys[best]
	if best == "proxy" {
		// One key per proxy: the one the error names.
		for _, x := range tp.Proxies {
			name, _, _ := strings.Cut(x, "=")
			if k := "PROXY_" + strings.ToUpper(name); strings.Contains(msg, fmt.Sprintf("proxy %q", name)) && tp.Has(k) {
				key = k
			}
		}
	}
	return tp.Errorf(key, "%w", err)
}

// help lays out hopbench --help; its flags are parseArgs'.
var help = usage.Help{
	Usage: []string{
		"hopbench [options]",
		"hopbench attach (--pid PID | --comm NAME) [options]",
		"hopbench compare [options] OLD NEW [MORE...]",
		"hopbench galera [options]",
		"hopbench help [attach|compare|galera|all]",
	},
	About: "Builds a responder, relays, socat and HAProxy on this machine, runs the load client over " +
		"every path in interleaved rounds, and prints what each hop adds to a round trip, in µs.",
	First: []string{"backend URL", "command CMD", "paths LIST", "threads LIST", "runs N", "time DUR",
		"placement SPEC", "proxy NAME=ADDR", "format text|json|csv", "out DIR", "verbose"},
	Groups: []usage.Group{
		usage.Section("Backend and workload", "replica URL", "proto echo|mysql", "service-time LIST", "size LIST",
			"rows LIST", "client-instances N"),
		usage.Section("Paths", "transports LIST", "hops LIST", "relay-lock MODE"),
		usage.Section("Rounds", "round-requests N", "budget DUR", "warmup DUR", "discard K"),
		usage.Section("Placement and hosts", "backend-cpus LIST", "nice N", "topology FILE"),
		usage.Section("Measurement", "stats", "trace"),
		usage.Section("Output", "wide", "quiet", "history FILE"),
	},
	Examples: []string{
		"hopbench                                    # every path on this machine, default rounds",
		"hopbench --backend mysql://bench:pw@127.0.0.1:3306/sbtest --command oltp-ro --out after/",
		"hopbench --proxy mine='./myproxy --listen {listen} --to {upstream}' --paths direct,haproxy",
		"hopbench compare before/ after/             # what moved, and whether it is more than noise",
	},
}

// flagValues are hopbench's flags as pflag fills them.
type flagValues struct {
	backend    *string
	replica    *[]string
	instances  *int
	proto      *string
	command    *string
	paths      *string
	transports *string
	threads    *string
	duration   *time.Duration
	roundReqs  *int
	budget     *time.Duration
	warmup     *time.Duration
	runs       *int
	discard    *int
	hops       *string
	service    *string
	size       *string
	rows       *string
	placement  *string
	backendCPU *string
	nice       *int
	relayLock  *string
	proxies    *[]string
	stats      *bool
	trace      *bool
	format     *string
	out        *string
	wide       *bool
	quiet      *bool
	verbose    *bool
	hist       *string
	_          *string
}

// defineFlags defines hopbench's flags on fs, their defaults def's.
func defineFlags(fs *pflag.FlagSet, def driver.Config) *flagValues {
	var (
		backend = fs.String("backend", "embedded", "server behind every path: embedded, or mysql://USER:PASS@HOST:PORT/DB "+
			"(?socket=PATH); A;B: a --client-instances sweep")
		replica = fs.StringArray("replica", nil, "mysql-rw: a replica its router reads from, mysql://USER:PASS@HOST:PORT/DB "+
			"(repeatable; the backend is the primary)")
		instances = fs.Int("client-instances", 1, "clients at once through the thread sweep, their tps summed per "+
			"thread count; direct paths only")
		proto   = fs.String("proto", "", "embedded responder's protocol: echo or mysql (default "+driver.EmbeddedProto+")")
		command = fs.String("command", def.Command, "mysql workload: "+commandNames())
		paths   = fs.String("paths", "", "relays to include: direct,"+relay.EngineList(",")+",socat,haproxy (default all), "+
			"and mysql-conn,mysql-rw (hoprelay's MySQL router, only when named)")
		transports = fs.String("transports", "tcp,unix", "client legs")
		threads    = fs.String("threads", "1", "client connections: 1,2,4 or 1;2;4 (a thread sweep)")
		duration   = fs.Duration("time", def.Time, "each path's run per round: at least this, longer to hold "+
			"--round-requests requests; typed alone, exactly this")
		roundReqs = fs.Int("round-requests", def.RoundRequests, "requests of the direct path each round should hold "+
			"(0: every round runs --time)")
		budget    = fs.Duration("budget", def.Budget, "longest all rounds may take when sizing lengthens them (0: no bound)")
		warmup    = fs.Duration("warmup", def.Warmup, "client warm-up before each timed run")
		runs      = fs.Int("runs", def.Rounds, "rounds; every path runs once per round, interleaved")
		discard   = fs.Int("discard", def.Discard, "leading rounds dropped as warm-up (0 when --runs is 1)")
		hops      = fs.String("hops", "", "chain lengths such as 0,1,2,3: chains of N relays of each engine, a per-hop fit")
		service   = fs.String("service-time", "", "embedded backend's own time per request, such as 0,20us,100us,1ms")
		size      = fs.String("size", "", "payload bytes: echo message size, or bytes per row for mysql")
		rows      = fs.String("rows", "", "mysql rows per result (large results stream)")
		placement = fs.String("placement", "", "packed (all on one CPU; same-core), spread, none (unpinned), or "+
			"client=0 relay=1 server=1; default: packed and spread side by side")
		backendCPU = fs.String("backend-cpus", "", "pin a real backend on this machine to these CPUs for the run "+
			"(its mask is put back at the end)")
		nice      = fs.Int("nice", 0, "niceness of the embedded server")
		relayLock = fs.String("relay-lock", "", "hoprelay --lock: "+relay.LockNames())
		proxies   = fs.StringArray("proxy", nil, "a proxy of yours as a path, repeatable: NAME=ADDR of one running "+
			"in front of --backend, or NAME=COMMAND with {listen} and {upstream} in it")
		stats = fs.Bool("stats", true, "collect hoprelay --stats: the relay-code part of each hop's split")
		trace = fs.Bool("trace", def.Trace, "one more round of every path traced by BPF (root or CAP_BPF, BTF), "+
			"splitting each hop from its requests' critical paths")
		format  = fs.String("format", "text", "report on stdout; hopbench compare reads json")
		out     = fs.String("out", "", "directory for report.html, report.json, .csv, .txt, one .hgrm per path and plots")
		wide    = fs.Bool("wide", false, "text report with every column (up to 250 wide) instead of fitting 100")
		quiet   = fs.BoolP("quiet", "q", false, "no progress lines on stderr")
		verbose = fs.BoolP("verbose", "v", false, "a line per path and round in the progress, and the full text report")
		hist    = fs.String("history", defaultHistory(), "this machine's runs, a line each: a path more than 15% "+
			"from the median of the same command's last runs is flagged (\"\": keep none)")
		_ = fs.String("topology", "", "hosts (local, netns:NAME, ssh://user@host) and where each component "+
			"runs, plus any of these flags as KEY=value; flags given override it")
	)
	return &flagValues{backend: backend, replica: replica, instances: instances, proto: proto, command: command, paths: paths, transports: transports, threads: threads, duration: duration, roundReqs: roundReqs, budget: budget, warmup: warmup, runs: runs, discard: discard, hops: hops, service: service, size: size, rows: rows, placement: placement, backendCPU: backendCPU, nice: nice, relayLock: relayLock, proxies: proxies, stats: stats, trace: trace, format: format, out: out, wide: wide, quiet: quiet, verbose: verbose, hist: hist}
}

func parseArgs(args []string, err error) (options, error) {
	if err != nil {
		return options{}, err
	}
	def := driver.DefaultConfig()
	fs := pflag.NewFlagSet("hopbench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := defineFlags(fs, def)
	if err := usage.Parse(fs, &help, version, args, os.Stdout); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q: %s", fs.Arg(0), unknownSubcommand(fs.Arg(0)))
	}
	if !fs.Changed("discard") && *f.discard >= *f.runs && *f.runs >= 1 {
		// The default warm-up round needs a second round to keep: a
		// single --runs 1 is kept whole rather than refused over a flag
		// the user never typed.
		*f.discard = 0
	}
	o := options{cfg: def, format: *f.format, out: *f.out, wide: *f.wide, verbose: *f.verbose, history: *f.hist,
		command: measuredFlags(fs)}
	c := &o.cfg
	if err := f.workload(c); err != nil {
		return o, err
	}
	if err := f.matrix(c); err != nil {
		return o, err
	}
	if err := f.rounds(fs, c); err != nil {
		return o, err
	}
	if err := f.sweeps(c); err != nil {
		return o, err
	}
	c.Nice = *f.nice
	if _, err := relay.ParseLock(*f.relayLock); err != nil {
		return o, cli.BadValue("--relay-lock", *f.relayLock, err)
	}
	c.RelayLock = *f.relayLock
	for _, spec := range *f.proxies {
		x, err := driver.ParseProxy(spec)
		if err != nil {
			return o, cli.BadValue("--proxy", spec, err)
		}
		c.Proxies = append(c.Proxies, x)
	}
	c.Stats, c.Trace = *f.stats, *f.trace
	// hopbench's reports come in the formats pingpong's do.
	if _, err := load.ReporterFor(*f.format, report.Report{}); err != nil {
		return o, cli.BadValue("--format", *f.format, err)
	}
	if !*f.quiet {
		level := present.ProgressRounds
		switch {
		case *f.verbose:
			level = present.ProgressPaths
		case isTerminal(os.Stderr):
			level = present.ProgressLive
		}
		c.Progress = present.NewProgress(os.Stderr, level)
	}
	// What no single flag decides (rows with echo, placement names, ...).
	if err := c.Check(); err != nil {
		return o, checkError(fs, err)
	}
	return o, nil
}

// workload reads the backend, the client instances, the protocol and the
// mysql command into c.
func (f *flagValues) workload(c *driver.Config) error {
	var err error
	if c.Backends, err = driver.ParseBackends(*f.backend); err != nil {
		return cli.BadValue("--backend", redact(*f.backend), err)
	}
	c.Backend = c.Backends[0]
	if len(c.Backends) == 1 {
		c.Backends = nil
	}
	for _, r := range *f.replica {
		b, err := driver.ParseBackend(r)
		if err != nil || b.Embedded() {
			if err == nil {
				err = errors.New("want mysql://USER:PASS@HOST:PORT/DB")
			}
			return cli.BadValue("--replica", redact(r), err)
		}
		c.Replicas = append(c.Replicas, b)
	}
	if *f.instances < 1 {
		return fmt.Errorf("--client-instances \"%d\": want at least 1", *f.instances)
	}
	c.Instances = *f.instances
	if *f.proto != "" && *f.proto != driver.ProtoEcho && *f.proto != driver.ProtoMySQL {
		return fmt.Errorf("--proto %q: want echo or mysql", *f.proto)
	}
	c.Proto, c.Command = *f.proto, *f.command
	if _, err := mysql.ParseCommand(*f.command); err != nil {
		return cli.BadValue("--command", *f.command, err)
	}
	return nil
}

// matrix reads the paths, transports and thread counts into c.
func (f *flagValues) matrix(c *driver.Config) error {
	var err error
	if *f.paths != "" {
		items, err := list.Items(*f.paths)
		if err != nil {
			return cli.BadList("--paths", *f.paths, err)
		}
		for _, it := range items {
			r, err := hop.ParseRelay(it)
			if err != nil {
				return cli.BadValue("--paths", *f.paths, err)
			}
			c.Relays = append(c.Relays, r)
		}
	}
	items, err := list.Items(*f.transports)
	if err != nil {
		return cli.BadList("--transports", *f.transports, err)
	}
	c.Transports = nil
	for _, it := range items {
		t, err := hop.ParseTransport(it)
		if err != nil {
			return cli.BadValue("--transports", *f.transports, err)
		}
		c.Transports = append(c.Transports, t)
	}
	if c.Threads, err = list.Ints(*f.threads, 1); err != nil {
		return cli.BadList("--threads", *f.threads, err)
	}
	return nil
}

// rounds reads the rounds' length, warm-up, sizing, count and discarded
// ones into c.
func (f *flagValues) rounds(fs *pflag.FlagSet, c *driver.Config) error {
	if *f.duration <= 0 {
		return fmt.Errorf("--time %q: want a positive duration", f.duration.String())
	}
	if *f.warmup < 0 {
		return fmt.Errorf("--warmup %q: want 0 or more", f.warmup.String())
	}
	c.Time, c.Warmup = *f.duration, *f.warmup
	if *f.roundReqs < 0 {
		return fmt.Errorf("--round-requests \"%d\": want 0 or more", *f.roundReqs)
	}
	if *f.budget < 0 {
		return fmt.Errorf("--budget %q: want 0 or more", f.budget.String())
	}
	c.RoundRequests, c.Budget = *f.roundReqs, *f.budget
	if fs.Changed("time") && !fs.Changed("round-requests") {
		// A length the user gives is every round's length.
		c.RoundRequests = 0
	}
	if *f.runs < 1 {
		return fmt.Errorf("--runs \"%d\": want at least 1", *f.runs)
	}
	if *f.discard < 0 || *f.discard >= *f.runs {
		if *f.runs == 1 {
			return fmt.Errorf("--discard \"%d\": want 0: one round has none to spare", *f.discard)
		}
		return fmt.Errorf("--discard \"%d\": want 0 to %d, fewer than the %d rounds", *f.discard, *f.runs-1, *f.runs)
	}
	c.Rounds, c.Discard = *f.runs, *f.discard
	if !fs.Changed("time") && !fs.Changed("runs") {
		// A default run against a real backend lengthens its rounds
		// until every hop resolves, within this bound (driver/resolve.go).
		c.Resolve = resolveBound
	}
	return nil
}

// resolveBound is how long a default run against a real backend may spend
// lengthening its rounds until every hop resolves: a few default runs.
const resolveBound = 10 * time.Minute

// sweeps reads the chain lengths, the backend settings swept, the
// placement and the backend's CPUs into c.
func (f *flagValues) sweeps(c *driver.Config) error {
	var err error
	if *f.hops != "" {
		if c.Hops, err = list.Ints(*f.hops, 0); err != nil {
			return cli.BadList("--hops", *f.hops, err)
		}
	}
	if *f.service != "" {
		if c.ServiceTimes, err = list.Durations(*f.service); err != nil {
			return cli.BadList("--service-time", *f.service, err)
		}
	}
	if *f.size != "" {
		if c.Sizes, err = list.Ints(*f.size, 1); err != nil {
			return cli.BadList("--size", *f.size, err)
		}
	}
	if *f.rows != "" {
		if c.Rows, err = list.Ints(*f.rows, 0); err != nil {
			return cli.BadList("--rows", *f.rows, err)
		}
	}
	if *f.placement != "" {
		if err := applyPlacement(c, *f.placement); err != nil {
			return err
		}
	}
	if *f.backendCPU != "" {
		online, err := affinity.OnlineCPUs()
		if err != nil {
			return cli.BadValue("--backend-cpus", *f.backendCPU, err)
		}
		if c.BackendCPUs, err = affinity.ParseListFor(*f.backendCPU, online); err != nil {
			return cli.BadList("--backend-cpus", *f.backendCPU, err)
		}
	}
	return nil
}

// checkError is the driver's error about a Config field, said of the flag
// that set it and the value typed there: the driver names the field as
// hopbench names the flag (`driver: placement "gpu=0": ...` is
// --placement's).
func checkError(fs *pflag.FlagSet, err error) error {
	msg := strings.TrimPrefix(err.Error(), "driver: ")
	field, rest, _ := strings.Cut(msg, " ")
	f := fs.Lookup(field)
	if f == nil || !f.Changed {
		return errors.New(msg)
	}
	_, why, ok := strings.Cut(rest, ": ")
	value := f.Value.String()
	if sv, isSlice := f.Value.(pflag.SliceValue); isSlice {
		if len(sv.GetSlice()) != 1 {
			return errors.New("--" + msg) // the driver names which one
		}
		value = sv.GetSlice()[0]
	}
	if !ok {
		return errors.New("--" + msg)
	}
	return fmt.Errorf("--%s %q: %s", field, redact(value), why)
}

// password is the secret of a mysql://USER:PASS@ URL.
var password = regexp.MustCompile(`(://[^:/@]*:)[^@]*@`)

// redact hides the passwords of the URLs in s, as the report does.
func redact(s string) string { return password.ReplaceAllString(s, "${1}xxxxx@") }

// placementPresets are the --placement values that name a regime rather
// than CPUs: packed is the report's name for same-core.
var placementPresets = []string{driver.RegimePacked, "same-core", driver.RegimeSpread, driver.RegimeNone}

// applyPlacement reads --placement against the CPUs online now.
func applyPlacement(c *driver.Config, spec string) error {
	s := strings.TrimSpace(spec)
	switch {
	case s == driver.RegimeNone:
		c.Regimes = []driver.Regime{{Name: driver.RegimeNone}}
		return nil
	case s == driver.RegimePacked:
		s = "same-core"
	case !strings.ContainsAny(s, "=, \t") && !slices.Contains(placementPresets, s):
		want := "want packed (or same-core), spread, none, or CPUs per component: client=0 relay=1 server=1"
		if near := spell.Nearest(s, placementPresets); near != "" {
			want = "did you mean " + near + "? " + want
		}
		return cli.Usage(fmt.Errorf("--placement %q: %s", spec, want))
	}
	online, err := affinity.OnlineCPUs()
	if err != nil {
		return cli.BadValue("--placement", spec, err)
	}
	if c.Placement, err = affinity.ParsePlacement(s, online); err != nil {
		return cli.BadValue("--placement", spec, err)
	}
	return nil
}

// isTerminal reports whether f is a character device (a terminal), where a
// status line can be rewritten in place.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

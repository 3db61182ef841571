package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/list"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/present/load"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/results"
	"github.com/hoplat/hoplat/results/hop"
)

type options struct {
	cfg    driver.Config
	format string
	out    string
	wide   bool // the text report's full columns instead of 100
	// verbose selects the full text report (every table and verdict)
	// instead of the one-screen one.
	verbose bool
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
	tp, err := hosts.ReadTopology(path)
	if err != nil {
		return options{}, err
	}
	if _, err := parseArgs(tp.Args(), nil); err != nil {
		return options{}, fileError(tp, err)
	}
	o, err := parseArgs(append(tp.Args(), args...), nil)
	o.cfg.Hosts = tp
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
func fileError(tp *hosts.TopologyFile, err error) error {
	msg, best := err.Error(), ""
	for flag := range hosts.FlagKeys {
		if strings.Contains(msg, "--"+flag) && len(flag) > len(best) {
			best = flag
		}
	}
	if best == "" {
		return fmt.Errorf("topology %s: %w", tp.File, err)
	}
	key := hosts.FlagKeys[best]
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

func parseArgs(args []string, err error) (options, error) {
	if err != nil {
		return options{}, err
	}
	def := driver.DefaultConfig()
	fs := pflag.NewFlagSet("hopbench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		backend    = fs.String("backend", "embedded", "server behind every path: embedded, or mysql://USER:PASS@HOST:PORT/DB (unix(/path) or ?socket=/path for its UNIX socket); several mysql:// separated by ; for a sweep of --client-instances")
		instances  = fs.Int("client-instances", 1, "clients run at once through the thread sweep, each against the backends (or SERVER_HOST's servers) in turn, summed per thread count as RonDB's autobench does (SYSBENCH_INSTANCES); direct paths only")
		proto      = fs.String("proto", "", "embedded responder's protocol: echo or mysql (default "+driver.EmbeddedProto+")")
		command    = fs.String("command", def.Command, "mysql workload: "+commandNames())
		paths      = fs.String("paths", "", "relays to include: direct,"+relay.EngineList(",")+",socat,haproxy (default all)")
		transports = fs.String("transports", "tcp,unix", "client legs: tcp,unix")
		threads    = fs.String("threads", "1", "client connections, LIST: 1,2,4 or 1;2;4 (a thread sweep)")
		duration   = fs.Duration("time", def.Time, "length of one path's run in each round; unset, the shortest, lengthened until a round holds --round-requests requests")
		roundReqs  = fs.Int("round-requests", def.RoundRequests, "size rounds so that each holds this many requests of the direct path (measured before the rounds; 0: every round runs --time)")
		budget     = fs.Duration("budget", def.Budget, "longest the rounds may take in all when sizing lengthens them (0: no bound)")
		warmup     = fs.Duration("warmup", def.Warmup, "client warm-up before each timed run")
		runs       = fs.Int("runs", def.Rounds, "rounds; every path runs once per round, interleaved")
		discard    = fs.Int("discard", def.Discard, "leading rounds dropped as warm-up")
		hops       = fs.String("hops", "", "chain lengths, LIST such as 0,1,2,3: chains of N relays of each engine, fit per-hop cost")
		service    = fs.String("service-time", "", "embedded backend's own time per request, LIST such as 0,20us,100us,1ms")
		size       = fs.String("size", "", "payload bytes, LIST: echo message size, or bytes per row for mysql")
		rows       = fs.String("rows", "", "mysql rows per result, LIST (large results stream)")
		placement  = fs.String("placement", "", "CPU placement: client=0 relay=1 server=1, same-core, spread, or none (unpinned); default: packed and spread side by side")
		backendCPU = fs.String("backend-cpus", "", "pin a real backend running on this machine to these CPUs for the run (LIST; its mask is put back at the end); unset, the report says where it runs")
		nice       = fs.Int("nice", 0, "niceness of the embedded server")
		relayLock  = fs.String("relay-lock", "", "hoprelay --lock: "+relay.LockNames())
		proxies    = fs.StringArray("proxy", nil, "a proxy of your own as a path, repeatable: NAME=ADDR, one running already and pointed at --backend, dialed as a relay is; or 'NAME=COMMAND', started per stage from a template whose {listen} (HOST:PORT; {listen_host}, {listen_port}) and {upstream} (the backend; {upstream_host}, {upstream_port}) are filled in, {dir} a temp dir of its own, {config:PATH} the file PATH so filled in (e.g. nginx=\"nginx -p {dir} -c {config:stream.conf} -g 'daemon off;'\"); it must stay in the foreground")
		stats      = fs.Bool("stats", true, "collect hoprelay --stats: the relay-code part of each hop's split (--stats=false to skip)")
		trace      = fs.Bool("trace", def.Trace, "run one more round of every path traced through the scheduler and the kernel (BPF; needs root or CAP_BPF and BTF), and split each hop from its requests' critical paths (--trace=false to skip)")
		format     = fs.String("format", "text", "output: text, json or csv")
		out        = fs.String("out", "", "directory for report.html (one self-contained page), report.json, report.csv, report.txt, one .hgrm per path and plots (PNG, SVG)")
		wide       = fs.Bool("wide", false, "text report with every column (up to 250 wide) instead of fitting 100 columns")
		quiet      = fs.BoolP("quiet", "q", false, "no progress lines on stderr")
		verbose    = fs.BoolP("verbose", "v", false, "progress: a line per path and round with its figures; and the full text report (every table and verdict)")
		help       = fs.BoolP("help", "h", false, "this help")
		_          = fs.String("topology", "", "topology file: hosts (local, netns:NAME, ssh://user@host[:port]), where each component runs, and any of these flags' settings as KEY=value; the flags given override it")
	)
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if *help {
		fmt.Fprintf(os.Stdout, "usage: hopbench [flags]\n       hopbench compare [flags] OLD.json NEW.json [MORE.json...] (compare --help)\n\n%s", fs.FlagUsages())
		return options{}, pflag.ErrHelp
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q (hopbench takes only flags)", fs.Arg(0))
	}
	o := options{cfg: def, format: *format, out: *out, wide: *wide, verbose: *verbose}
	c := &o.cfg
	if c.Backends, err = driver.ParseBackends(*backend); err != nil {
		return o, fmt.Errorf("--backend: %w", err)
	}
	c.Backend = c.Backends[0]
	if len(c.Backends) == 1 {
		c.Backends = nil
	}
	if *instances < 1 {
		return o, fmt.Errorf("--client-instances %d: need at least 1", *instances)
	}
	c.Instances = *instances
	if *proto != "" && *proto != driver.ProtoEcho && *proto != driver.ProtoMySQL {
		return o, fmt.Errorf("--proto %q: want echo or mysql", *proto)
	}
	c.Proto, c.Command = *proto, *command
	if _, err := mysql.ParseCommand(*command); err != nil {
		return o, fmt.Errorf("--command: %w", err)
	}
	if *paths != "" {
		items, err := list.Items(*paths)
		if err != nil {
			return o, fmt.Errorf("--paths %w", err)
		}
		for _, it := range items {
			r, err := hop.ParseRelay(it)
			if err != nil {
				return o, fmt.Errorf("--paths: %w", err)
			}
			c.Relays = append(c.Relays, r)
		}
	}
	items, err := list.Items(*transports)
	if err != nil {
		return o, fmt.Errorf("--transports %w", err)
	}
	c.Transports = nil
	for _, it := range items {
		t, err := hop.ParseTransport(it)
		if err != nil {
			return o, fmt.Errorf("--transports: %w", err)
		}
		c.Transports = append(c.Transports, t)
	}
	if c.Threads, err = list.Ints(*threads, 1); err != nil {
		return o, fmt.Errorf("--threads %w", err)
	}
	if *duration <= 0 {
		return o, fmt.Errorf("--time %v: must be positive", *duration)
	}
	if *warmup < 0 {
		return o, fmt.Errorf("--warmup %v: must not be negative", *warmup)
	}
	c.Time, c.Warmup = *duration, *warmup
	if *roundReqs < 0 {
		return o, fmt.Errorf("--round-requests %d: must not be negative", *roundReqs)
	}
	if *budget < 0 {
		return o, fmt.Errorf("--budget %v: must not be negative", *budget)
	}
	c.RoundRequests, c.Budget = *roundReqs, *budget
	if fs.Changed("time") && !fs.Changed("round-requests") {
		// A length the user gives is every round's length.
		c.RoundRequests = 0
	}
	if *runs < 1 {
		return o, fmt.Errorf("--runs %d: need at least 1", *runs)
	}
	if *discard < 0 || *discard >= *runs {
		return o, fmt.Errorf("--discard %d: must be at least 0 and below --runs %d", *discard, *runs)
	}
	c.Rounds, c.Discard = *runs, *discard
	if *hops != "" {
		if c.Hops, err = list.Ints(*hops, 0); err != nil {
			return o, fmt.Errorf("--hops %w", err)
		}
	}
	if *service != "" {
		if c.ServiceTimes, err = list.Durations(*service); err != nil {
			return o, fmt.Errorf("--service-time %w", err)
		}
	}
	if *size != "" {
		if c.Sizes, err = list.Ints(*size, 1); err != nil {
			return o, fmt.Errorf("--size %w", err)
		}
	}
	if *rows != "" {
		if c.Rows, err = list.Ints(*rows, 0); err != nil {
			return o, fmt.Errorf("--rows %w", err)
		}
	}
	if *placement != "" {
		if err := applyPlacement(c, *placement); err != nil {
			return o, err
		}
	}
	if *backendCPU != "" {
		online, err := affinity.OnlineCPUs()
		if err != nil {
			return o, fmt.Errorf("--backend-cpus %q: %w", *backendCPU, err)
		}
		if c.BackendCPUs, err = affinity.ParseListFor(*backendCPU, online); err != nil {
			return o, fmt.Errorf("--backend-cpus %w", err)
		}
	}
	c.Nice = *nice
	if _, err := relay.ParseLock(*relayLock); err != nil {
		return o, fmt.Errorf("--relay-lock: %w", err)
	}
	c.RelayLock = *relayLock
	for _, spec := range *proxies {
		x, err := driver.ParseProxy(spec)
		if err != nil {
			return o, fmt.Errorf("--proxy: %w", err)
		}
		c.Proxies = append(c.Proxies, x)
	}
	c.Stats, c.Trace = *stats, *trace
	// hopbench's reports come in the formats pingpong's do.
	if _, err := load.ReporterFor(*format, results.Report{}); err != nil {
		return o, fmt.Errorf("--format: %w", err)
	}
	if !*quiet {
		c.Progress = os.Stderr
		switch {
		case *verbose:
			c.ProgressLevel = driver.ProgressPaths
		case isTerminal(os.Stderr):
			c.ProgressLevel = driver.ProgressLive
		}
	}
	// What no single flag decides (rows with echo, placement names, ...).
	if err := c.Check(); err != nil {
		return o, err
	}
	return o, nil
}

// applyPlacement reads --placement against the CPUs online now.
func applyPlacement(c *driver.Config, spec string) error {
	if strings.TrimSpace(spec) == driver.RegimeNone {
		c.Regimes = []driver.Regime{{Name: driver.RegimeNone}}
		return nil
	}
	online, err := affinity.OnlineCPUs()
	if err != nil {
		return fmt.Errorf("--placement %q: %w", spec, err)
	}
	if c.Placement, err = affinity.ParsePlacement(spec, online); err != nil {
		return fmt.Errorf("--placement: %w", err)
	}
	return nil
}

// isTerminal reports whether f is a character device (a terminal), where a
// status line can be rewritten in place.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

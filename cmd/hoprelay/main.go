package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/cmd/internal/usage"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/replace"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, pflag.ErrHelp) {
		err = nil
	}
	if in, ok := err.(cli.Interrupted); ok {
		// A signal is how a relay ends: its status says which, quietly,
		// as socat's does.
		os.Exit(128 + int(in.Signal))
	}
	cli.Exit("hoprelay", err)
}

// version is set at link time (go build -ldflags "-X main.version=...").
var version string

// help lays out hoprelay --help; its flags are run's.
var help = usage.Help{
	Usage: []string{"hoprelay [options] LISTEN CONNECT [CONNECT...]"},
	About: "LISTEN and CONNECT take hoplat's short forms (tcp:HOST:PORT, unix:/path) and socat's " +
		"(TCP4-LISTEN:PORT,reuseaddr,fork; TCP4:HOST:PORT,nodelay; UNIX-LISTEN:PATH).\n\n" +
		"Several CONNECT addresses: each connection goes to one (--balance); one that refuses is " +
		"skipped for --retry and the connection tries the next.\n\n" +
		"--route conn and rw read MySQL: the relay logs each client in itself and logs in to its " +
		"upstreams with the same account. rw takes the first CONNECT as the primary, the rest as replicas.",
	First: []string{"engine NAME", "workers N", "cpus LIST", "wake auto|adaptive|sleep", "balance roundrobin|leastconn",
		"route bytes|conn|rw", "stats FILE"},
	Groups: []usage.Group{
		usage.Section("Engine", "lock none|conn|global", "buffer BYTES"),
		usage.Section("Waiting (epoll, splice)", "spin", "busy-poll DUR", "slice DUR", "no-batch"),
		usage.Section("Upstreams and connections", "retry DUR", "max-conns N", "grace DUR"),
		usage.Section("Routing MySQL (epoll)", "user NAME", "password PW", "users FILE"),
	},
	Examples: []string{
		"hoprelay TCP4-LISTEN:4008,reuseaddr,fork,nodelay TCP4:127.0.0.1:3306,nodelay",
		"hoprelay --engine splice UNIX-LISTEN:/tmp/mysql.sock,fork TCP4:127.0.0.1:3306",
		"hoprelay --stats /tmp/s.json TCP-LISTEN:3306 tcp:10.0.0.1:3306 tcp:10.0.0.2:3306",
		"hoprelay --route rw --user sb --password pw tcp:0.0.0.0:4006 tcp:db1:3306 tcp:db2:3306",
	},
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parseArgs(args, stdout, stderr)
	if err != nil {
		return err
	}
	return serve(o, stdout, stderr)
}

// options are hoprelay's command line, checked: what it relays, how, and
// where its stats go ("" for none).
type options struct {
	listen  sockets.Addr
	connect []sockets.Addr
	cfg     relay.Config
	stats   string
	logger  *log.Logger
}

// parseArgs reads and checks the command line; --help and --version are
// printed to stdout and returned as usage.Parse returns them.
func parseArgs(args []string, stdout, stderr io.Writer) (*options, error) {
	fs := pflag.NewFlagSet("hoprelay", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned and printed once, by main
	defaultEngine := "epoll"
	if runtime.GOOS != "linux" {
		defaultEngine = "goroutine"
	}
	engine := fs.String("engine", defaultEngine, relay.EngineList(", ")+"; sockmap forwards in the kernel (BPF, "+
		"TCP legs only, no residence timing; see relay/doc.go)")
	workers := fs.Int("workers", 1, "event loops (epoll, splice)")
	spin := fs.Bool("spin", false, "poll with a zero timeout instead of sleeping: burns a core")
	busyPoll := fs.Duration("busy-poll", 0, "poll without sleeping for this long after each event, e.g. 50us")
	slice := fs.Duration("slice", relay.DefaultSlice, "time slice each loop thread asks the kernel for (Linux 6.12+): "+
		"a woken loop lets the task running finish instead of preempting it; 0: the kernel's default")
	wake := fs.String("wake", "auto", "how loops wait without --spin or --busy-poll; auto: on one CPU adaptive while no other task "+
		"runs there, on 2 or 3 sleep, on more adaptive (stderr and --stats say which)")
	noBatch := fs.Bool("no-batch", false, "epoll: one recvfrom and one sendto per message, not io_uring batches")
	cpus := fs.String("cpus", "", "CPUs to pin loop threads to, e.g. 0-3,8 or 0;2")
	lock := fs.String("lock", "none", "locking design of the loops")
	buffer := fs.String("buffer", "64K", "bytes per direction (suffix K, M)")
	stats := fs.String("stats", "", "write JSON stats and per-chunk residence times here at exit and on SIGUSR1")
	maxConns := fs.Int("max-conns", 0, "refuse connections beyond this many live ones (0: no bound)")
	grace := fs.Duration("grace", relay.DefaultGrace, "on SIGINT or SIGTERM, how long live connections may finish (0: close them at once)")
	balance := fs.String("balance", string(relay.BalanceRoundRobin), "how each connection picks one of several CONNECT addresses")
	retry := fs.Duration("retry", relay.DefaultRetry, "how long a CONNECT address that failed a connect is skipped")
	route := fs.String("route", string(relay.RouteBytes), "what the relay reads: bytes (nothing), conn (MySQL: its own login, "+
		"whole packets, one upstream a connection) or rw (conn splitting reads to replicas)")
	user := fs.String("user", "", "conn, rw: the account clients log in with and the relay uses upstream")
	password := fs.String("password", "", "conn, rw: --user's password (default $MYSQL_PWD)")
	usersFile := fs.String("users", "", "conn, rw: a file of accounts, one name:password a line")
	if err := usage.Parse(fs, &help, version, args, stdout); err != nil {
		return nil, err
	}
	listen, connect, err := addresses(fs.Args())
	if err != nil {
		return nil, err
	}
	if *retry <= 0 {
		return nil, cli.Usage(fmt.Errorf("--retry %q: want more than 0", retry.String()))
	}
	users, err := routeUsers(fs, *route, *user, *password, *usersFile)
	if err != nil {
		return nil, err
	}
	if *route != string(relay.RouteBytes) && !fs.Changed("engine") {
		*engine = string(relay.EngineEpoll)
	}
	cfg := relay.Config{
		Route: relay.Route(*route), Users: users,
		Engine: relay.Engine(*engine), Workers: *workers, Spin: *spin, NoBatch: *noBatch, BusyPoll: *busyPoll, Wake: relay.Wake(*wake), Lock: relay.Lock(*lock),
		MaxConns: *maxConns, Stats: *stats != "", Grace: *grace, Balance: relay.Balance(*balance), Retry: *retry,
	}
	if *grace == 0 {
		cfg.Grace = -1
	}
	if *slice < 0 {
		return nil, cli.Usage(fmt.Errorf("--slice %q: want 0 (the kernel's default) or more", slice.String()))
	}
	if fs.Changed("slice") {
		if cfg.Slice = *slice; *slice == 0 {
			cfg.Slice = -1
		}
	}
	if *cpus != "" {
		if cfg.CPUs, err = affinity.ParseCPUs(*cpus); err != nil {
			return nil, cli.BadList("--cpus", *cpus, err)
		}
	}
	if cfg.Buffer, err = parseBytes(*buffer); err != nil {
		return nil, cli.BadValue("--buffer", *buffer, err)
	}
	if *workers < 1 {
		return nil, cli.Usage(fmt.Errorf("--workers \"%d\": want 1 or more", *workers))
	}
	if *maxConns < 0 {
		return nil, cli.Usage(fmt.Errorf("--max-conns \"%d\": want 0 (no bound) or more", *maxConns))
	}
	if *grace < 0 {
		return nil, cli.Usage(fmt.Errorf("--grace %q: want 0 or more", grace.String()))
	}
	logger := log.New(stderr, "", log.LstdFlags|log.Lmicroseconds)
	cfg.Logf = logger.Printf

	if err := cfg.Validate(); err != nil {
		return nil, flagError(fs, err)
	}
	// Found now, not at the first SIGUSR1 or at exit, after the run.
	if *stats != "" {
		if err := cli.CheckOutputFile("stats", *stats); err != nil {
			return nil, err
		}
	}
	return &options{listen: listen, connect: connect, cfg: cfg, stats: *stats, logger: logger}, nil
}

// addresses reads the arguments after the options: LISTEN, then one or
// more CONNECT addresses, none of them a listen address.
func addresses(args []string) (listen sockets.Addr, connect []sockets.Addr, err error) {
	if len(args) < 2 {
		return listen, nil, cli.Usage(fmt.Errorf("want LISTEN CONNECT [CONNECT...], got %d (hoprelay --help)", len(args)))
	}
	if listen, err = sockets.Parse(args[0]); err != nil {
		return listen, nil, cli.BadAddress("LISTEN", args[0], err)
	}
	for _, arg := range args[1:] {
		a, err := sockets.Parse(arg)
		if err != nil {
			return listen, nil, cli.BadAddress("CONNECT", arg, err)
		}
		if a.Role == sockets.RoleListen {
			return listen, nil, cli.Usage(fmt.Errorf("CONNECT %q: a listen address; want one to connect to", arg))
		}
		connect = append(connect, a)
	}
	return listen, connect, nil
}

// serve runs the relay until a signal stops it or it fails, writing its
// stats on SIGUSR1 and at the end.
func serve(o *options, stdout, stderr io.Writer) error {
	stats, logger := &o.stats, o.logger
	r, err := relay.NewUpstreams(o.listen, o.connect, o.cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	if strategy, rule, cpus := r.Wake(); strategy != "" {
		fmt.Fprintf(stderr, "hoprelay: wake %s (%s)\n", strategy, wakeWhy(rule, cpus))
	}
	if b := r.Batch(); b != "" {
		fmt.Fprintf(stderr, "hoprelay: batch %s\n", b)
	}
	// The signals are caught before the readiness line: a SIGUSR1 sent
	// as soon as it is read would otherwise meet the default action and
	// end the relay.
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	fmt.Fprintf(stdout, "listening %s\n", r.Addr())
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}

	served := make(chan error, 1)
	go func() { served <- r.Serve(ctx) }()
	for {
		select {
		case <-usr1:
			if *stats != "" {
				s := worded(r.Stats())
				if !s.Partial {
					// Serve, started just after the readiness line, has
					// not yet marked itself serving: the relay listens
					// all the same, and this is a snapshot of it.
					s.Partial, s.WhileServing = true, true
					s.PartialReason = partialReason(s)
				}
				if err := writeStats(*stats, s); err != nil {
					logger.Printf("hoprelay: %v", err)
				}
			}
		case err := <-served:
			// Stopped by a signal, the status is 128+signal, as socat's
			// and the other binaries'; the stats say whether a
			// connection was cut (partial) or every one had ended.
			var sig cli.Interrupted
			if err == nil && errors.As(context.Cause(ctx), &sig) {
				err = sig
			}
			if *stats != "" {
				s := worded(r.Stats())
				if s.Partial && sig.Signal != 0 {
					s.PartialReason = sig.Error() + "; " + s.PartialReason
				}
				if serr := writeStats(*stats, s); serr != nil {
					if err == error(sig) {
						err = nil // the stats lost are the failure to report
					}
					err = errors.Join(err, serr)
				}
			}
			return err
		}
	}
}

// routeUsers is the accounts --user/--password and --users give a router,
// nil for --route bytes (which takes none).
func routeUsers(fs *pflag.FlagSet, route, user, password, file string) (map[string]string, error) {
	given := fs.Changed("user") || fs.Changed("password") || fs.Changed("users")
	if route == string(relay.RouteBytes) || route == "" {
		if given {
			return nil, cli.Usage(fmt.Errorf("--user, --password and --users need --route conn or rw"))
		}
		return nil, nil
	}
	users := map[string]string{}
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, cli.Usage(fmt.Errorf("--users %q: %w", file, err))
		}
		defer f.Close()
		if users, err = relay.ParseUsers(f); err != nil {
			return nil, cli.Usage(fmt.Errorf("--users %q: %s", file, strings.TrimPrefix(err.Error(), "relay: users")))
		}
	}
	if user != "" {
		if !fs.Changed("password") {
			password = os.Getenv("MYSQL_PWD")
		}
		users[user] = password
	} else if fs.Changed("password") {
		return nil, cli.Usage(fmt.Errorf("--password needs --user"))
	}
	if len(users) == 0 {
		return nil, cli.Usage(fmt.Errorf("--route %s: want --user NAME (and --password) or --users FILE: the relay logs clients in itself", route))
	}
	return users, nil
}

// flagError is relay's error about a Config field, said of the flag that
// set it: relay names the field as hoprelay names the flag ("relay: lock
// \"big\": ..." is --lock's), and a rule over several fields
// ("spin/busy-poll/wake: ...") is said of those the user gave.
func flagError(fs *pflag.FlagSet, err error) error {
	msg := strings.TrimPrefix(err.Error(), "relay: ")
	field, rest, _ := strings.Cut(msg, " ")
	var named []string
	for _, f := range strings.Split(strings.TrimSuffix(field, ":"), "/") {
		if fs.Lookup(f) != nil && (fs.Changed(f) || !strings.Contains(field, "/")) {
			named = append(named, "--"+f)
		}
	}
	if len(named) == 0 {
		return cli.Usage(errors.New(msg))
	}
	sep := " "
	if strings.HasSuffix(field, ":") {
		sep = ": "
	}
	return cli.Usage(errors.New(strings.Join(named, ", ") + sep + rest))
}

// worded is s with its words filled in: why it is partial, and why its
// loops wait as they do.
func worded(s relay.Snapshot) relay.Snapshot {
	s.PartialReason = partialReason(s)
	s.Config.WakeWhy = wakeWhy(s.Config.WakeRule, s.Config.WakeCPUs)
	return s
}

// wakeWhy says the rule by which a relay's loops wait as they do, with
// the CPUs an auto rule read; "" for engines without loops of their own.
func wakeWhy(rule relay.WakeRule, cpus int) string {
	switch rule {
	case relay.WakeBySpin:
		return "--spin: polls with a zero timeout, never sleeps"
	case relay.WakeByBusyPoll:
		return "--busy-poll: polls for that long after each event"
	case relay.WakeBySleep:
		return "--wake sleep"
	case relay.WakeByAdaptive:
		return fmt.Sprintf("--wake adaptive: polls up to %v after an event while that catches the next one", relay.AdaptiveSpin)
	case relay.WakeAutoOwn:
		return fmt.Sprintf("auto: the loop may run on 1 CPU: it polls up to %v after an event "+
			"(adaptive) while, over the last %v, it waited for that CPU less than %.0f%% of the time it ran, and sleeps while it waited longer: another task wants the CPU",
			relay.OwnSpin, relay.OwnWindow, 100*relay.OwnMaxWait)
	case relay.WakeAutoFew:
		return fmt.Sprintf("auto: the loop may run on %d CPUs, fewer than %d: polling would hold a CPU its client or server needs", cpus, relay.AdaptiveCPUs)
	case relay.WakeAutoMany:
		return fmt.Sprintf("auto: the loop may run on %d CPUs: polls up to %v after an event while that catches the next one", cpus, relay.AdaptiveSpin)
	case relay.WakeRouter:
		return "the router's loops sleep in epoll_wait"
	}
	return ""
}

// partialReason says why a snapshot is partial, "" for a whole one.
func partialReason(s relay.Snapshot) string {
	switch {
	case s.WhileServing:
		return "snapshot while serving: live connections counted so far"
	case s.Cut == 1:
		return "stopped with 1 connection still open, closed by the relay: counted up to the stop"
	case s.Cut > 1:
		return fmt.Sprintf("stopped with %d connections still open, closed by the relay: counted up to the stop", s.Cut)
	}
	return ""
}

// writeStats replaces path atomically, so a reader never sees half a file.
func writeStats(path string, s relay.Snapshot) error {
	if err := replace.File(path, s.WriteJSON); err != nil {
		return fmt.Errorf("stats %s: %w", path, err)
	}
	return nil
}

// parseBytes reads a size with an optional K, M or G suffix (powers of 1024).
func parseBytes(s string) (int, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := 1
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, t[:len(t)-1]
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, t[:len(t)-1]
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, t[:len(t)-1]
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 || n > (1<<30)/mult {
		return 0, fmt.Errorf("want a size like 65536 or 64K")
	}
	return n * mult, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, pflag.ErrHelp) {
		err = nil
	}
	cli.Exit("hoprelay", err)
}

// batchUsage is --no-batch's help.
const batchUsage = "epoll: make one recvfrom and one sendto per message. By default a wake-up that finds several connections " +
	"readable reads them all in one io_uring_enter and writes them on in another (at one connection nothing changes); " +
	"where the kernel refuses io_uring the relay says so on stderr and makes one call per message"

// wakeUsage is --wake's help: what each strategy costs, measured.
const wakeUsage = "how epoll and splice loops wait when --spin and --busy-poll are not given: auto (the default) sleeps " +
	"in epoll_wait when the loop may run on fewer than 4 CPUs (taskset, --cpus), where it shares them with its client and " +
	"server, and is adaptive on more; adaptive polls up to 50us after each event while such polls catch the next one; " +
	"sleep always sleeps. The choice is printed on stderr and in --stats (wake, wake_why). On a loaded 2-vCPU guest, " +
	"unpinned, adaptive added 37.2us to a sockperf round trip where sleep added 31.8 (p99 112 against 244); packed on " +
	"one CPU --busy-poll 50us added 74-113us where sleep added 25-32 (README.md, Defaults)"

func run(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("hoprelay", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	defaultEngine := "epoll"
	if runtime.GOOS != "linux" {
		defaultEngine = "goroutine"
	}
	engine := fs.String("engine", defaultEngine, relay.EngineList("|")+" (sockmap: BPF redirect in the kernel, TCP legs only, no residence timing, up to 16x --buffer held in the kernel per direction; see relay/doc.go)")
	workers := fs.Int("workers", 1, "event loops (epoll, splice)")
	spin := fs.Bool("spin", false, "loops poll with a zero timeout instead of sleeping (burns a core; packed on one CPU with client and server its added sockperf p99 was 7.2ms in one run, below the direct path in another: see --wake)")
	busyPoll := fs.Duration("busy-poll", 0, "loops poll without sleeping for this long after each event (e.g. 50us)")
	wake := fs.String("wake", "auto", wakeUsage)
	noBatch := fs.Bool("no-batch", false, batchUsage)
	cpus := fs.String("cpus", "", "CPUs to pin loop threads to, e.g. 0-3,8 or 0;2")
	lock := fs.String("lock", "none", "none|conn|global: locking design of the loops")
	buffer := fs.String("buffer", "64K", "bytes per direction (suffix K, M)")
	stats := fs.String("stats", "", "write JSON stats and per-chunk residence times to FILE at exit and on SIGUSR1")
	maxConns := fs.Int("max-conns", 0, "refuse connections beyond this many live ones (0 = no bound)")
	grace := fs.Duration("grace", relay.DefaultGrace, "on SIGINT/SIGTERM, how long live connections may finish")
	balance := fs.String("balance", string(relay.BalanceRoundRobin), "with several CONNECT addresses, how each connection picks one: roundrobin (HAProxy's balance roundrobin, MaxScale's readconnroute) or leastconn")
	retry := fs.Duration("retry", relay.DefaultRetry, "with several CONNECT addresses, how long one that failed a connect is skipped (the connection tries the next)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: hoprelay [flags] LISTEN CONNECT [CONNECT...]\n\n"+
			"  e.g. hoprelay TCP4-LISTEN:4008,reuseaddr,fork,nodelay TCP4:127.0.0.1:3306,nodelay\n"+
			"       hoprelay UNIX-LISTEN:/tmp/mysql.sock,fork TCP4:127.0.0.1:3306,nodelay\n"+
			"       hoprelay TCP-LISTEN:3306 tcp:10.0.0.1:3306 tcp:10.0.0.2:3306 tcp:10.0.0.3:3306\n\n"+
			"Several CONNECT addresses: each connection goes to one (--balance); one that\n"+
			"refuses is skipped for --retry and the connection tries the next.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return cli.Usage(err)
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return cli.Usage(fmt.Errorf("want LISTEN CONNECT [CONNECT...], got %d arguments", fs.NArg()))
	}
	listen, err := sockets.Parse(fs.Arg(0))
	if err != nil {
		return cli.Usage(err)
	}
	var connect []sockets.Addr
	for _, arg := range fs.Args()[1:] {
		a, err := sockets.Parse(arg)
		if err != nil {
			return cli.Usage(err)
		}
		if a.Role == sockets.RoleListen {
			return cli.Usage(fmt.Errorf("CONNECT %s is a listen address", arg))
		}
		connect = append(connect, a)
	}
	if *retry <= 0 {
		return cli.Usage(fmt.Errorf("--retry %v: want more than 0", *retry))
	}
	cfg := relay.Config{
		Engine: relay.Engine(*engine), Workers: *workers, Spin: *spin, NoBatch: *noBatch, BusyPoll: *busyPoll, Wake: relay.Wake(*wake), Lock: relay.Lock(*lock),
		MaxConns: *maxConns, Stats: *stats != "", Grace: *grace, Balance: relay.Balance(*balance), Retry: *retry,
	}
	if *grace == 0 {
		cfg.Grace = -1
	}
	if *cpus != "" {
		if cfg.CPUs, err = affinity.ParseCPUs(*cpus); err != nil {
			return cli.Usage(fmt.Errorf("--cpus %w", err))
		}
	}
	if cfg.Buffer, err = parseBytes(*buffer); err != nil {
		return cli.Usage(fmt.Errorf("--buffer %q: %v", *buffer, err))
	}
	if *workers < 1 {
		return cli.Usage(fmt.Errorf("--workers %d: want 1 or more", *workers))
	}
	if *maxConns < 0 {
		return cli.Usage(fmt.Errorf("--max-conns %d: want 0 (no bound) or more", *maxConns))
	}
	if *grace < 0 {
		return cli.Usage(fmt.Errorf("--grace %v: want 0 or more", *grace))
	}
	logger := log.New(stderr, "", log.LstdFlags|log.Lmicroseconds)
	cfg.Logf = logger.Printf

	if err := cfg.Validate(); err != nil {
		return cli.Usage(err)
	}
	r, err := relay.NewUpstreams(listen, connect, cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	if strategy, why := r.Wake(); strategy != "" {
		fmt.Fprintf(stderr, "hoprelay: wake %s (%s)\n", strategy, why)
	}
	if b := r.Batch(); b != "" {
		fmt.Fprintf(stderr, "hoprelay: batch %s\n", b)
	}
	// The signals are caught before the readiness line: a SIGUSR1 sent
	// as soon as it is read would otherwise meet the default action and
	// end the relay.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
				if err := writeStats(*stats, r.Stats()); err != nil {
					logger.Printf("hoprelay: %v", err)
				}
			}
		case err := <-served:
			if *stats != "" {
				if serr := writeStats(*stats, r.Stats()); serr != nil && err == nil {
					err = serr
				}
			}
			return err
		}
	}
}

// writeStats replaces path atomically, so a reader never sees half a file.
func writeStats(path string, s relay.Snapshot) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hoprelay-stats-")
	if err != nil {
		return fmt.Errorf("stats %s: %w", path, err)
	}
	werr := s.WriteJSON(tmp)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("stats %s: %w", path, werr)
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

// Command pingpong is hoplat's load client: each thread holds one
// connection and times every round trip to the target, closed loop or at a
// fixed rate, and the report reads like sysbench's.
//
//	pingpong --target tcp:127.0.0.1:7000 --threads 1,2,4 --time 10s --runs 5 --discard 1
//	pingpong --target mysql://sbtest:sbtest@127.0.0.1:3306/sbtest --command oltp-ro
//
// It exits 1 when a round trip failed (the report still prints), 2 for
// flag values that make no sense (an --hgrm file that cannot be created
// included, before any load) and for a --target where nothing listens
// (refused, no such socket or host), and 130 or 143 when SIGINT or SIGTERM
// stops it. A stopped run still prints its
// report (and --hgrm files): what was measured up to the signal, marked
// partial, the run in progress with the time it ran. A second signal ends
// pingpong at once.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/cmd/internal/usage"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/list"
	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/pingpong/echo"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/present/hgrm"
	"github.com/hoplat/hoplat/present/load"
	"github.com/hoplat/hoplat/sockets"
)

func main() { cli.Exit("pingpong", run(os.Args[1:], os.Stdout, os.Stderr)) }

type options struct {
	cfg    pingpong.Config
	format string
	hgrm   string
	target string // --target as typed, its password masked
}

// version is set at link time (go build -ldflags "-X main.version=...").
var version string

// help lays out pingpong --help; its flags are parse's.
var help = usage.Help{
	Usage: []string{"pingpong --target ADDR [options]"},
	About: "Each thread holds one connection to --target and times every round trip, closed loop or at " +
		"--rate; the report reads like sysbench's.",
	First: []string{"target ADDR", "proto echo|mysql", "command CMD", "threads LIST", "time DUR", "runs N",
		"discard K", "rate R", "format text|json|csv"},
	Groups: []usage.Group{
		usage.Section("Connection", "connect-timeout DUR"),
		usage.Section("Load", "warmup DUR", "size BYTES"),
		usage.Section("Client threads", "io MODEL", "cpus LIST", "rx-stamps"),
		usage.Section("MySQL (--proto mysql)", "user NAME", "password PW", "db NAME", "query SQL", "ps",
			"table-size N", "tables N", "range-selects", "in-statement N", "skip-trx", "ignore-errors LIST", "connect-only"),
		usage.Section("Output", "hgrm FILE", "report-interval DUR"),
	},
	Examples: []string{
		"pingpong --target tcp:127.0.0.1:7000 --threads 1,2,4 --time 10s --runs 5 --discard 1",
		"pingpong --target unix:/tmp/p.sock --rate 10000 --format json",
		"pingpong --target mysql://sbtest:sbtest@127.0.0.1:3306/sbtest --command oltp-ro --threads 8",
	},
}

func parse(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := pflag.NewFlagSet("pingpong", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned and printed once, by main
	target := fs.String("target", "", "address to load: tcp:HOST:PORT, unix:/path, socat's TCP4:HOST:PORT,..., "+
		"or mysql://USER:PASS@HOST:PORT/DB as hopbench --backend takes it (then --proto mysql)")
	proto := fs.String("proto", "echo", "protocol")
	size := fs.Int("size", echo.DefaultSize, "echo: bytes per request and per reply")
	threads := fs.String("threads", "1", "thread counts, one connection each: 1,2,4 or 1;2;4")
	fs.DurationVar(&o.cfg.Time, "time", 10*time.Second, "length of each run")
	fs.DurationVar(&o.cfg.Warmup, "warmup", 0, "untimed load before each thread count's first run")
	fs.IntVar(&o.cfg.Runs, "runs", 1, "runs per thread count")
	fs.IntVar(&o.cfg.Discard, "discard", 0, "leave the first K runs out of the figures")
	fs.Float64Var(&o.cfg.Rate, "rate", 0, "open loop: total requests per second (0: closed loop)")
	ioModel := fs.String("io", "auto", "auto, netpoll, blocking or spin; auto: blocking, one OS thread per connection, "+
		"up to 16 per CPU, netpoll beyond")
	cpus := fs.String("cpus", "", "pin worker threads round-robin over these CPUs (0-3,8)")
	fs.DurationVar(&o.cfg.ReportInterval, "report-interval", 0, "print a progress line this often (0: off)")
	fs.DurationVar(&o.cfg.ConnectTimeout, "connect-timeout", 5*time.Second, "bound on each connection's set-up, handshake included")
	fs.StringVar(&o.format, "format", "text", "report format")
	fs.BoolVar(&o.cfg.RXStamps, "rx-stamps", false, "TCP: time each reply's kernel receive stamp, report the client's wake-up (rx_wake_us)")
	my := addMySQLFlags(fs)
	fs.StringVar(&o.hgrm, "hgrm", "", "write the latency histogram (microseconds) in HdrHistogram's .hgrm format")
	if err := usage.Parse(fs, &help, version, args, stdout); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, cli.Usage(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if *target == "" {
		return o, cli.Usage(errors.New("--target: an address is required"))
	}
	a, err := targetAddr(fs, *target, proto, my)
	if err != nil {
		return o, err
	}
	if a.Role == sockets.RoleListen {
		return o, cli.Usage(fmt.Errorf("--target %q: a listen address; want one to connect to", *target))
	}
	o.cfg.Target, o.target = a, mysql.Mask(*target)
	if o.cfg.Threads, err = list.Ints(*threads, 1); err != nil {
		return o, cli.BadList("--threads", *threads, err)
	}
	if o.cfg.IO, err = pingpong.ParseIO(*ioModel); err != nil {
		return o, cli.BadValue("--io", *ioModel, err)
	}
	if *cpus != "" {
		if o.cfg.CPUs, err = affinity.ParseCPUs(*cpus); err != nil {
			return o, cli.BadList("--cpus", *cpus, err)
		}
	}
	// A protocol that dials its own connections dials them as the
	// workers do, under the model the run will use.
	model := o.cfg.ChosenIO().Model
	if o.cfg.Protocol, err = protocol(fs, *proto, *size, my, a, model); err != nil {
		return o, cli.Usage(err)
	}
	if o.cfg.RXStamps && my.connectOnly {
		return o, cli.Usage(errors.New("--rx-stamps: a --connect-only run has no responses to stamp: each event is a new connection"))
	}
	if err := o.cfg.Validate(); err != nil {
		var ce *pingpong.ConfigError
		if errors.As(err, &ce) {
			return o, cli.Usage(fmt.Errorf("--%s %q: want %s", ce.Flag, fmt.Sprint(ce.Value), ce.Want))
		}
		return o, cli.Usage(err)
	}
	if _, err := load.ReporterFor(o.format, report.Report{}); err != nil {
		return o, cli.BadValue("--format", o.format, err)
	}
	if o.hgrm != "" {
		if err := cli.CheckOutputFile("hgrm", o.hgrm); err != nil {
			return o, err
		}
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stdout)
	if errors.Is(err, pflag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	// Progress lines go where sysbench prints them, unless stdout carries
	// a machine-readable report.
	progress := stdout
	if o.format != "text" {
		progress = stderr
	}
	o.cfg.Progress = func(p report.Progress) { fmt.Fprintln(progress, load.ProgressLine(p)) }

	// The first signal ends the load; what it had measured is still
	// written. The second ends pingpong at once, report or not.
	ctx, stop := cli.SignalContextForce(context.Background(), func(in cli.Interrupted) {
		fmt.Fprintf(stderr, "pingpong: %s: writing the report of what was measured (again to quit now)\n", cli.SignalName(in.Signal))
	})
	defer stop()
	rep, err := pingpong.Run(ctx, o.cfg)
	if err != nil && ctx.Err() == nil {
		err = unreachable(o.target, err)
	}
	if ctx.Err() != nil {
		if werr := writeReport(o, rep, stdout); werr != nil {
			return fmt.Errorf("%w; report: %v", context.Cause(ctx), werr)
		}
		return context.Cause(ctx)
	}
	if err != nil {
		return err
	}
	if err := writeReport(o, rep, stdout); err != nil {
		return err
	}
	return failures(rep.Results())
}

// targetAddr reads --target: an address, or a mysql:// URL, which names
// the server as hopbench --backend does and sets --proto mysql, --user,
// --password and --db; a flag that says otherwise is refused.
func targetAddr(fs *pflag.FlagSet, target string, proto *string, my *mysqlFlags) (sockets.Addr, error) {
	if !strings.HasPrefix(target, "mysql://") {
		a, err := sockets.Parse(target)
		if err != nil {
			return a, cli.BadAddress("--target", target, err)
		}
		return a, nil
	}
	masked := mysql.Mask(target)
	u, err := mysql.ParseURL(target)
	if err != nil {
		return sockets.Addr{}, cli.Usage(fmt.Errorf("--target %q: %v", masked, err))
	}
	if len(u.Servers) > 1 {
		return sockets.Addr{}, cli.Usage(fmt.Errorf("--target %q: pingpong loads one server; name one host", masked))
	}
	if fs.Changed("proto") && *proto != "mysql" {
		return sockets.Addr{}, cli.Usage(fmt.Errorf("--proto %q: a mysql:// --target speaks mysql; leave --proto out", *proto))
	}
	*proto = "mysql"
	if err := my.fromURL(fs, u); err != nil {
		return sockets.Addr{}, cli.Usage(fmt.Errorf("--target %q: %w", masked, err))
	}
	if u.TCP != nil {
		return *u.TCP, nil
	}
	return *u.UNIX, nil
}

// unreachable is the usage error for a --target no connection reached at
// the start of a step: the address typed and what the kernel said, in
// words rather than the dialing layers' names, and what to do. Another
// failure to connect (a login refused) is said of --target too, and stays
// the run's failure (exit 1); any other error is err.
func unreachable(target string, err error) error {
	var dns *net.DNSError
	var why string
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		why = "connection refused: nothing listens there; start the server first (pongd --listen ADDR), or fix --target"
	case errors.Is(err, syscall.ENOENT):
		why = "no such socket: nothing listens there; start the server first (pongd --listen ADDR), or fix --target"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		why = "host unreachable from this machine"
	case errors.As(err, &dns) && dns.IsNotFound:
		why = fmt.Sprintf("no such host %q", dns.Name)
	default:
		// Reached, and refused otherwise (a login): the server's words,
		// without the layers' names.
		var ce *pingpong.ConnectError
		if errors.As(err, &ce) {
			return fmt.Errorf("--target %q: %s", target, cli.Detail(target, ce.Err))
		}
		return err
	}
	return cli.Usage(fmt.Errorf("--target %q: %s", target, why))
}

// writeReport writes rep in the chosen format to stdout, and the --hgrm files.
func writeReport(o options, rep report.Report, stdout io.Writer) error {
	write, err := load.ReporterFor(o.format, rep)
	if err != nil {
		return err
	}
	if err := write(stdout); err != nil {
		return err
	}
	if o.hgrm != "" {
		return writeHgrm(o.hgrm, rep.Results())
	}
	return nil
}

// failures turns failed round trips into the exit status: a figure with
// errors behind it is not a clean figure. Ignored errors, retried on their
// connection as sysbench retries them, are not failures: sysbench exits 0
// with them too.
func failures(res []report.StepResult) error {
	for _, s := range res {
		if s.Errors == s.Ignored {
			continue
		}
		first := ""
		if len(s.ErrorSamples) > 0 {
			first = ": first: " + s.ErrorSamples[0]
		}
		if s.Transactions == 0 {
			return fmt.Errorf("%d threads: every request failed (%d errors)%s", s.Threads, s.Errors, first)
		}
		return fmt.Errorf("%d threads: %d errors, %d reconnects%s", s.Threads, s.Errors, s.Reconnects, first)
	}
	return nil
}

// writeHgrm writes each step's kept-run histogram: to path for a single
// thread count, else to path with ".tN" before its extension.
func writeHgrm(path string, res []report.StepResult) error {
	for _, s := range res {
		p := path
		if len(res) > 1 {
			ext := filepath.Ext(path)
			p = fmt.Sprintf("%s.t%d%s", strings.TrimSuffix(path, ext), s.Threads, ext)
		}
		f, err := os.Create(p)
		if err != nil {
			return fmt.Errorf("--hgrm: %w", err)
		}
		err = hgrm.Write(f, s.LatencyHist)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--hgrm %s: %w", p, err)
		}
	}
	return nil
}

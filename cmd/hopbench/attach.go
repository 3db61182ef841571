package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/tracer/attach"
)

// attachOptions are hopbench attach's flags.
type attachOptions struct {
	cfg    attach.Config
	time   time.Duration
	format string
}

func runAttach(args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("hopbench attach", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		pid    = fs.Int("pid", 0, "the proxy's process id (its threads and the children it forks too)")
		comm   = fs.String("comm", "", "every process of this name (/proc/PID/comm: haproxy, socat, nginx)")
		dur    = fs.Duration("time", 0, "trace this long, print one report, exit (default 10s; --listen: none)")
		format = fs.String("format", "text", "output: text or json")
		listen = fs.String("listen", "", "serve OpenMetrics at http://HOST:PORT/metrics until SIGINT/SIGTERM")
		window = fs.Duration("window", time.Second, "how long the tracer records between two reads of its buffer")
		help   = fs.BoolP("help", "h", false, "this help")
	)
	if err := fs.Parse(args); err != nil {
		return cli.Usage(err)
	}
	if *help {
		fmt.Fprintf(stdout, "usage: hopbench attach (--pid PID | --comm NAME) [flags]\n\n"+
			"Traces a proxy that is running (HAProxy, nginx stream, socat, ProxySQL, hoprelay) without\n"+
			"restarting it: how long each chunk of bytes stays inside it, per direction, and where\n"+
			"that time went (blocked, runnable, on_cpu, softirq). Needs root or CAP_BPF+CAP_PERFMON.\n\n"+
			"%s\nexamples:\n"+
			"  hopbench attach --comm haproxy --time 10s\n"+
			"  hopbench attach --pid 4242 --format json\n"+
			"  hopbench attach --comm socat --listen 127.0.0.1:9464   # Prometheus scrapes /metrics\n",
			fs.FlagUsages())
		return pflag.ErrHelp
	}
	if (*pid == 0) == (*comm == "") {
		return cli.Usage(errors.New("attach: give --pid PID or --comm NAME, one of them"))
	}
	if *pid < 0 {
		return cli.Usage(fmt.Errorf("--pid %d: want a process id", *pid))
	}
	if *format != "text" && *format != "json" {
		return cli.Usage(fmt.Errorf("--format %q: want text or json", *format))
	}
	if *dur < 0 || *window <= 0 {
		return cli.Usage(fmt.Errorf("--time %v, --window %v: want positive durations", *dur, *window))
	}
	o := attachOptions{cfg: attach.Config{PID: *pid, Comm: *comm, Window: *window}, time: *dur, format: *format}
	if *listen == "" && o.time == 0 {
		o.time = 10 * time.Second
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	var ln net.Listener
	if *listen != "" {
		var err error
		if ln, err = net.Listen("tcp", *listen); err != nil {
			return cli.Usage(fmt.Errorf("--listen %s: %w", *listen, err))
		}
		defer ln.Close()
		fmt.Fprintf(os.Stderr, "hopbench attach: serving http://%s/metrics\n", ln.Addr())
	}
	return attachRun(ctx, o, ln, stdout)
}

// attachRun attaches, traces until o.time has passed or ctx is done
// (serving ln's /metrics meanwhile, if ln is not nil), and prints the
// report.
func attachRun(ctx context.Context, o attachOptions, ln net.Listener, stdout io.Writer) error {
	var srv *http.Server
	served := make(chan error, 1)
	if ln != nil {
		reg := prometheus.NewRegistry()
		m, err := attach.NewMetrics(reg)
		if err != nil {
			return err
		}
		o.cfg.OnChunk = m.Observe
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
		srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { served <- srv.Serve(ln) }()
	}
	s, err := attach.Open(ctx, o.cfg)
	if err == nil {
		defer s.Close()
		err = s.Run(ctx, o.time)
	}
	if srv != nil {
		srv.Close()
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
	}
	switch {
	case errors.Is(err, attach.ErrNoProcess), errors.Is(err, attach.ErrNoSockets), errors.Is(err, errors.ErrUnsupported):
		return cli.Usage(err) // what is missing is the user's to fix: exit 2
	case err != nil:
		return err
	}
	// A signal ends a --listen session as it should, and cuts a --time
	// one short: the report covers what was traced either way.
	rep := s.Report()
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(stdout)
}

// attachConfig is the config of attaching to one pid, as --pid gives it.
func attachConfig(pid int) attach.Config {
	return attach.Config{PID: pid, Window: 200 * time.Millisecond}
}

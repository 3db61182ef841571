package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/cmd/internal/usage"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/tracer/attach"
)

// attachHelp lays out hopbench attach --help; its flags are runAttach's.
var attachHelp = usage.Help{
	Usage: []string{"hopbench attach (--pid PID | --comm NAME) [options]"},
	About: "Traces a proxy that is running (HAProxy, nginx stream, socat, ProxySQL, hoprelay) without " +
		"restarting it: how long each chunk of bytes stays inside it, per direction, and where that time " +
		"went (blocked, runnable, on_cpu, softirq). The hooks are attached --duty percent of the time, in " +
		"windows spread over the run: the proxy pays the tracer's cost only then, and the chunks are a " +
		"sample. Needs root or CAP_BPF+CAP_PERFMON, and the kernel's BTF.",
	Groups: []usage.Group{
		usage.Section("Target", "pid PID", "comm NAME"),
		usage.Section("Tracing", "time DUR", "duty PCT", "window DUR"),
		usage.Section("Output", "format text|json", "listen HOST:PORT", "label KEY=VALUE"),
	},
	Examples: []string{
		"hopbench attach --comm haproxy --time 10s",
		"hopbench attach --pid 4242 --format json --duty 100",
		"hopbench attach --comm socat --listen 127.0.0.1:9464   # Prometheus scrapes /metrics",
		"hopbench attach --comm haproxy --listen :9464 --label version=2.6 --label instance=lb1",
	},
}

// attachOptions are hopbench attach's flags.
type attachOptions struct {
	cfg    attach.Config
	time   time.Duration
	format string
	labels map[string]string // --label, set on every series
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
		window = fs.Duration("window", 200*time.Millisecond, "how long the tracer records before a read")
		duty   = fs.Float64("duty", 10, "percent of the time the hooks are attached (100: every chunk)")
		labels = fs.StringArray("label", nil, "a label KEY=VALUE on every series (repeatable: instance, version)")
	)
	if err := usage.Parse(fs, &attachHelp, version, args, stdout); err != nil {
		return err
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
	if !(*duty > 0 && *duty <= 100) {
		return cli.Usage(fmt.Errorf("--duty %g: want a percent above 0, at most 100", *duty))
	}
	o := attachOptions{cfg: attach.Config{PID: *pid, Comm: *comm, Window: *window, Duty: *duty / 100}, time: *dur, format: *format}
	for _, l := range *labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return cli.Usage(fmt.Errorf("--label %q: want KEY=VALUE", l))
		}
		if o.labels == nil {
			o.labels = map[string]string{}
		}
		if _, dup := o.labels[k]; dup {
			return cli.Usage(fmt.Errorf("--label %q: %s given twice", l, k))
		}
		o.labels[k] = v
	}
	if len(o.labels) > 0 && *listen == "" {
		return cli.Usage(fmt.Errorf("--label %s: labels name the series --listen serves; give --listen too", (*labels)[0]))
	}
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
		m, err := attach.NewMetrics(reg, o.labels)
		if err != nil {
			return cli.Usage(err)
		}
		o.cfg.OnChunk = m.Observe
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
		srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { served <- srv.Serve(ln) }()
	}
	s, err := attach.Open(ctx, o.cfg)
	var own affinity.CPUSet
	if err == nil {
		defer s.Close()
		own = keepOff(s.PIDs())
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
	if own.Len() > 0 {
		rep.Tracer.CPUs = own.String()
	}
	if o.format == "json" {
		return present.WriteAttachJSON(stdout, rep)
	}
	return present.WriteAttach(stdout, rep)
}

// keepOff moves this process off the CPUs the target may run on, where
// it leaves some: reading a window's records and matching its chunks
// would otherwise preempt the proxy it measures (docs/measurements.md,
// "Attach"). It
// returns the CPUs taken, or none where the target may run on every
// CPU, or the masks cannot be read or set.
func keepOff(pids []int) affinity.CPUSet {
	online, err := affinity.OnlineCPUs()
	if err != nil {
		return affinity.CPUSet{}
	}
	taken := make([]affinity.CPUSet, len(pids))
	for i, p := range pids {
		if taken[i], err = affinity.ProcessCPUs(p); err != nil {
			return affinity.CPUSet{}
		}
	}
	free := online.Without(taken...)
	if free.Len() == 0 {
		return affinity.CPUSet{}
	}
	if _, err := affinity.PinProcess(os.Getpid(), free); err != nil {
		return affinity.CPUSet{}
	}
	return free
}

// attachConfig is the config of attaching to one pid, as --pid gives it.
func attachConfig(pid int) attach.Config {
	return attach.Config{PID: pid, Window: 200 * time.Millisecond}
}

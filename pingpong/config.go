package pingpong

import (
	"errors"
	"fmt"
	"time"

	"github.com/hoplat/hoplat/results"
	"github.com/hoplat/hoplat/sockets"
)

// Config is what the load client runs. The zero value, given a Target and
// a Protocol, is one thread, one closed-loop 10 s run over Go's netpoller,
// unpinned.
type Config struct {
	Target   sockets.Addr
	Protocol Protocol // required: echo.Protocol, mysql's, ...
	// Threads lists the thread counts swept, one step each; each thread is
	// one connection with its own histogram. Default {1}.
	Threads []int
	Time    time.Duration // length of each run; default 10 s
	Warmup  time.Duration // untimed load before each step's first run
	Runs    int           // runs per step; default 1
	Discard int           // the first Discard runs of a step are left out of its figures
	// Rate is the total request rate across threads, per second: the open
	// loop, where each request is timed from its intended send time as
	// well (coordinated omission, as wrk2 corrects it). 0 is closed loop.
	Rate float64
	IO   IOModel
	// CPUs pins worker i's thread to CPUs[i % len(CPUs)]; unpinned when empty.
	CPUs []int
	// ReportInterval, when positive, calls Progress with what every
	// interval counted, as sysbench's --report-interval does.
	ReportInterval time.Duration
	Progress       func(results.Progress)
	// ConnectTimeout bounds each connection set-up, handshake included;
	// default 5 s. An unreachable host would otherwise hold a run for the
	// kernel's SYN retries (about two minutes, tcp_syn_retries).
	ConnectTimeout time.Duration
}

const (
	defaultTime           = 10 * time.Second
	defaultConnectTimeout = 5 * time.Second
)

func (c Config) withDefaults() (Config, error) {
	if c.Protocol == nil {
		return c, errors.New("pingpong: no protocol")
	}
	if len(c.Threads) == 0 {
		c.Threads = []int{1}
	}
	if c.Time == 0 {
		c.Time = defaultTime
	}
	if c.Runs == 0 {
		c.Runs = 1
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = defaultConnectTimeout
	}
	for _, n := range c.Threads {
		if n < 1 {
			return c, fmt.Errorf("pingpong: threads %d: want at least 1", n)
		}
	}
	for _, cpu := range c.CPUs {
		if cpu < 0 {
			return c, fmt.Errorf("pingpong: cpu %d: want a CPU number", cpu)
		}
	}
	switch {
	case c.Time < 0:
		return c, fmt.Errorf("pingpong: time %v: want a positive duration", c.Time)
	case c.Warmup < 0:
		return c, fmt.Errorf("pingpong: warmup %v: want 0 or more", c.Warmup)
	case c.Runs < 0:
		return c, fmt.Errorf("pingpong: runs %d: want at least 1", c.Runs)
	case c.Discard < 0 || c.Discard >= c.Runs:
		return c, fmt.Errorf("pingpong: discard %d: want 0 to runs-1 (%d)", c.Discard, c.Runs-1)
	case c.Rate < 0:
		return c, fmt.Errorf("pingpong: rate %v: want 0 (closed loop) or more", c.Rate)
	case c.ConnectTimeout < 0:
		return c, fmt.Errorf("pingpong: connect timeout %v: want a positive duration", c.ConnectTimeout)
	case c.ReportInterval < 0:
		return c, fmt.Errorf("pingpong: report interval %v: want 0 (off) or more", c.ReportInterval)
	case c.IO > Spin:
		return c, fmt.Errorf("pingpong: I/O model %d unknown", c.IO)
	}
	return c, nil
}

// printed is the config as a report carries it.
type printed struct {
	Target         string  `json:"target"`
	Proto          string  `json:"proto"`
	Protocol       any     `json:"protocol"`
	Threads        []int   `json:"threads"`
	Time           string  `json:"time"`
	Warmup         string  `json:"warmup"`
	Runs           int     `json:"runs"`
	Discard        int     `json:"discard"`
	Rate           float64 `json:"rate"`
	IO             IOModel `json:"io"`
	CPUs           []int   `json:"cpus"`
	ReportInterval string  `json:"report_interval"`
	Clock          string  `json:"clock"`
}

func (c Config) printed() printed {
	return printed{
		Target: c.Target.String(), Proto: protoName(c.Protocol), Protocol: c.Protocol, Threads: c.Threads,
		Time: c.Time.String(), Warmup: c.Warmup.String(), Runs: c.Runs, Discard: c.Discard,
		Rate: c.Rate, IO: c.IO, CPUs: c.CPUs, ReportInterval: c.ReportInterval.String(),
		Clock: "monotonic, one read per send and per receive",
	}
}

// protoName is the protocol's Name, when it has one, else its Go type.
func protoName(p Protocol) string {
	if n, ok := p.(interface{ Name() string }); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", p)
}

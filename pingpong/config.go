package pingpong

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/pingpong/report"
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
	// IO is the I/O model; the zero value is Netpoll, the binaries pass
	// Auto (ChosenIO says what it runs).
	IO IOModel
	// CPUs pins worker i's thread to CPUs[i % len(CPUs)]; unpinned when empty.
	CPUs []int
	// ReportInterval, when positive, calls Progress with what every
	// interval counted, as sysbench's --report-interval does.
	ReportInterval time.Duration
	Progress       func(report.Progress)
	// ConnectTimeout bounds each connection set-up, handshake included;
	// default 5 s. An unreachable host would otherwise hold a run for the
	// kernel's SYN retries (about two minutes, tcp_syn_retries).
	ConnectTimeout time.Duration
	// RXStamps reads each response with the kernel's receive timestamp
	// and records the client's wake-up delay per response (stamp.go):
	// TCP targets, every I/O model. Off by default, so that the plain
	// client makes read(2) calls only.
	RXStamps bool

	// asked and io are IO as given and what chose the model run, set by
	// withDefaults, which resolves Auto into IO.
	asked IOModel
	io    iomodel.Choice
}

const (
	defaultTime           = 10 * time.Second
	defaultConnectTimeout = 5 * time.Second
)

func (c Config) withDefaults() (Config, error) {
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
	if err := c.Validate(); err != nil {
		return c, err
	}
	c.asked = c.IO
	c.io = c.ChosenIO()
	c.IO = c.io.Model
	return c, nil
}

// Validate reports the first field of c that makes no sense, as a
// *ConfigError. It checks c as given: Run fills zero Threads, Time, Runs
// and ConnectTimeout with their defaults first, so a caller that sets
// them (a command line does) learns here that 0 is not a run length.
func (c Config) Validate() error {
	if c.Protocol == nil {
		return errors.New("pingpong: no protocol")
	}
	for _, n := range c.Threads {
		if n < 1 {
			return &ConfigError{Flag: "threads", Value: n, Want: "at least 1"}
		}
	}
	for _, cpu := range c.CPUs {
		if cpu < 0 {
			return &ConfigError{Flag: "cpus", Value: cpu, Want: "a CPU number"}
		}
	}
	switch {
	case c.Time <= 0:
		return &ConfigError{Flag: "time", Value: c.Time, Want: "a positive duration"}
	case c.Warmup < 0:
		return &ConfigError{Flag: "warmup", Value: c.Warmup, Want: "0 or more"}
	case c.Runs < 1:
		return &ConfigError{Flag: "runs", Value: c.Runs, Want: "at least 1"}
	case c.Discard < 0 || c.Discard >= c.Runs:
		return &ConfigError{Flag: "discard", Value: c.Discard, Want: fmt.Sprintf("0 to runs-1 (%d)", c.Runs-1)}
	case c.Rate < 0:
		return &ConfigError{Flag: "rate", Value: c.Rate, Want: "0 (closed loop) or more"}
	case c.ConnectTimeout < 0:
		return &ConfigError{Flag: "connect-timeout", Value: c.ConnectTimeout, Want: "a positive duration"}
	case c.ReportInterval < 0:
		return &ConfigError{Flag: "report-interval", Value: c.ReportInterval, Want: "0 (off) or more"}
	case c.IO > Auto:
		return &ConfigError{Flag: "io", Value: uint8(c.IO), Want: "auto, netpoll, blocking or spin"}
	case c.RXStamps && c.Target.IsUnix():
		// sockets.ErrNoRXTimestamps: unix_stream_read_generic never
		// attaches the control message.
		return &ConfigError{Flag: "rx-stamps", Value: c.Target, Want: "a TCP target (UNIX stream sockets carry no receive timestamps)"}
	}
	return nil
}

// ChosenIO is the I/O model a run of c uses and what chose it: c.IO, or for Auto the
// one it picks for the largest thread count (Threads default 1) on the
// CPUs the workers may run on (CPUs, else the process's affinity mask),
// open loop or closed alike (the pacer sleeps in nanosleep(2) under
// either).
func (c Config) ChosenIO() iomodel.Choice {
	if c.IO != Auto {
		return iomodel.Choice{Model: c.IO}
	}
	most := 1
	for _, n := range c.Threads {
		most = max(most, n)
	}
	return autoIO(most, cpusFor(c.CPUs))
}

// ConfigError names the Config field that makes no sense by the pingpong
// flag that sets it ("time", "report-interval"), so a command line can point
// at the flag.
type ConfigError struct {
	Flag  string
	Value any
	Want  string
}

func (e *ConfigError) Error() string {
	// The message reads as prose: "report interval", not the flag's dash.
	return fmt.Sprintf("pingpong: %s %v: want %s", strings.ReplaceAll(e.Flag, "-", " "), e.Value, e.Want)
}

// printed is the config as a report carries it; package present/load
// words IOReason from IOChoice.
func (c Config) printed() *report.RunConfig {
	return &report.RunConfig{
		IOChosen: c.IO, IOChoice: c.io,
		Target: c.Target.String(), Proto: protoName(c.Protocol), Protocol: c.Protocol, Threads: c.Threads,
		Time: c.Time.String(), Warmup: c.Warmup.String(), Runs: c.Runs, Discard: c.Discard,
		Rate: c.Rate, IO: c.asked, CPUs: c.CPUs, ReportInterval: c.ReportInterval.String(),
		Clock: "monotonic, one read per send and per receive", RXStamps: c.RXStamps,
	}
}

// protoName is the protocol's Name, when it has one, else its Go type.
func protoName(p Protocol) string {
	if n, ok := p.(interface{ Name() string }); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", p)
}

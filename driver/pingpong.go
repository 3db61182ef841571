package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/tailbuf"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/sockets"
	"github.com/hoplat/hoplat/stats"
)

// Client is how hopbench runs pingpong for one round of one path: one
// process per round, one run, so every round starts from fresh connections
// and a crash stays inside its round.
type Client struct {
	Proto    string // echo or mysql
	Size     int    // echo payload bytes
	User     string // mysql
	Password string
	DB       string
	Command  string // mysql: ping, select1, point-select, oltp-ro, …
	Time     time.Duration
	Warmup   time.Duration
	CPUs     string // --cpus, the placement's client CPUs (also applied at fork)
	// ConnectTimeout bounds each of pingpong's connection set-ups
	// (--connect-timeout); 0 leaves pingpong's 5 s up to 16 threads and
	// gives 200 ms per connection beyond (ConnectTimeoutFor).
	ConnectTimeout time.Duration
	// ConnectOnly makes every event a whole connection (dial, login,
	// quit, close): a series of set-ups rather than one per round. mysql.
	ConnectOnly bool
	// RXStamps asks pingpong for its wake-up per response from the
	// kernel's receive stamps (--rx-stamps): TCP targets only, since UNIX
	// stream sockets carry none, and not in a connect-only run, whose
	// events read no responses on a kept connection.
	RXStamps bool
}

// Args is pingpong's command line for one round against target with threads
// connections.
func (c Client) Args(bin string, target sockets.Addr, threads int) []string {
	argv := []string{bin,
		"--target", target.String(),
		"--proto", c.Proto,
		"--threads", strconv.Itoa(threads),
		"--time", c.Time.String(),
		"--warmup", c.Warmup.String(),
		"--runs", "1",
		"--format", "json",
		// Blocking, for client and responder alike: each connection's
		// goroutine sleeps in the kernel's recvfrom holding its P, so a
		// message costs the Go runtime no hand-off. With netpoll, on one
		// CPU, the netpoller's hand-off gave every hop's round trips two
		// humps, and each round's p50 fell on one or the other; blocking,
		// the load generator no longer stands in the hop's figure
		// (docs/measurements.md, "Blocking load").
		"--io", "blocking",
	}
	switch c.Proto {
	case ProtoEcho:
		if c.Size > 0 {
			argv = append(argv, "--size", strconv.Itoa(c.Size))
		}
	case ProtoMySQL:
		argv = append(argv, "--user", c.User)
		if !c.ConnectOnly { // a connect-only run sends no statement
			argv = append(argv, "--command", c.Command)
		}
		if c.DB != "" {
			argv = append(argv, "--db", c.DB)
		}
		if c.ConnectOnly {
			argv = append(argv, "--connect-only")
		}
	}
	if c.CPUs != "" {
		argv = append(argv, "--cpus", c.CPUs)
	}
	if d := c.connectTimeout(threads); d > 0 {
		argv = append(argv, "--connect-timeout", d.String())
	}
	if c.RXStamps && !c.ConnectOnly && !target.IsUnix() {
		argv = append(argv, "--rx-stamps")
	}
	return argv
}

// connectTimeout is the set-up bound to give pingpong for threads
// connections, 0 for its own default. Every connection of a round opens
// at once, and each handshake waits behind the others' on the CPUs the
// client, relay and server share: 128 connections through a relay on a
// loaded two-core machine took past pingpong's 5 s, failing the round
// (hopbench --threads 1,…,128, load average 80).
func (c Client) connectTimeout(threads int) time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	if threads <= 16 {
		return 0
	}
	return time.Duration(threads) * 200 * time.Millisecond
}

// Env is what the client's process needs besides its flags: the password
// goes through MYSQL_PWD, as with the mysql client, so it never shows in ps.
func (c Client) Env() []string {
	if c.Proto == ProtoMySQL && c.Password != "" {
		return []string{"MYSQL_PWD=" + c.Password}
	}
	return nil
}

// ParsePingpong reads one round's figures from pingpong's JSON output,
// decoded with the types pingpong/report writes it from.
func ParsePingpong(data []byte) (hop.Sample, error) {
	var r report.ReportJSON
	if err := json.Unmarshal(data, &r); err != nil {
		return hop.Sample{}, fmt.Errorf("driver: parse pingpong json: %w (output: %.200q)", err, data)
	}
	if r.Schema != report.SchemaPingpong {
		return hop.Sample{}, fmt.Errorf("driver: parse pingpong json: schema %q, want %s", r.Schema, report.SchemaPingpong)
	}
	if r.Partial {
		// A round cut short is shorter than its neighbours: it would
		// weigh in a series of equal runs as if it were one of them.
		return hop.Sample{}, fmt.Errorf("driver: parse pingpong json: a partial report (%s), not a round", r.PartialReason)
	}
	if len(r.Results) != 1 {
		return hop.Sample{}, fmt.Errorf("driver: parse pingpong json: %d results, want 1 (one thread count per round)", len(r.Results))
	}
	res := r.Results[0]
	s := hop.Sample{Latency: res.Latency, TPS: res.TPS.Mean, Errors: res.Errors - res.Ignored, Ignored: res.Ignored,
		Pinning: r.Env.Pinning, RXWake: (*hop.Wake)(res.RXWake)}
	if res.Connect != nil {
		s.Connect = res.Connect.P50
	}
	if res.Transactions > 0 && res.Queries > res.Transactions {
		s.Statements = float64(res.Queries) / float64(res.Transactions)
	}
	if res.Histogram != "" {
		h, err := stats.DecodeHistogram(res.Histogram)
		if err != nil {
			return hop.Sample{}, err
		}
		s.Hist = h
	}
	return s, nil
}

// RunClient runs one pingpong process to completion, on cpus when any,
// and returns its figures. Cancelling ctx kills its process group.
func RunClient(ctx context.Context, argv, env []string, cpus affinity.CPUSet) (hop.Sample, error) {
	return RunClientWith(ctx, argv, env, cpus, nil)
}

// RunClientWith is RunClient, calling started with pingpong's PID once it
// runs (before its warm-up ends, as a tracer that follows it needs); an
// error from started stops pingpong and is returned.
func RunClientWith(ctx context.Context, argv, env []string, cpus affinity.CPUSet, started func(pid int) error) (hop.Sample, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	affinity.NewGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	cmd.WaitDelay = hosts.StopGrace
	if env != nil {
		cmd.Env = append(cmd.Environ(), env...)
	}
	var stdout bytes.Buffer
	stderr := tailbuf.New(2048)
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	var obtained string
	err := affinity.StartOn(cmd, cpus)
	if err == nil && started != nil {
		if serr := started(cmd.Process.Pid); serr != nil {
			killGroup(cmd)
			cmd.Wait()
			return hop.Sample{}, fmt.Errorf("driver: pingpong started: %w", serr)
		}
	}
	if err == nil {
		if cpus.Len() > 0 {
			obtained = obtainedCPUs(cmd.Process.Pid)
		}
		err = cmd.Wait()
	}
	if ctx.Err() != nil {
		return hop.Sample{}, ctx.Err()
	}
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return hop.Sample{}, fmt.Errorf("pingpong %s: %v: %s", strings.Join(argv[1:3], " "), err, stderr)
		}
		return hop.Sample{}, fmt.Errorf("driver: run pingpong: %w", err)
	}
	s, err := ParsePingpong(stdout.Bytes())
	s.CPUs = obtained
	// The whole process's, from wait4's rusage (µs resolution): its
	// exited threads included, which a pinned connection's are.
	s.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	s.MaxRSSKiB = maxRSSKiB(cmd.ProcessState)
	return s, err
}

// minStamped is the share of a round's responses that must carry a
// receive stamp for its wake-ups to stand for the round: the stack
// switches stamping on from a work queue (net_enable_timestamp,
// net/core/dev.c) a moment after the first socket asks, so the first
// responses of a round may go unstamped.
const minStamped = 0.9

// clientWakes is the client's mean stamped wake-up per response (µs) over
// a series' timed rounds (from discard on, failed ones left out; each
// round's own warm-up is already out of pingpong's figures), or nil
// unless every such round stamped nearly all its responses: a path whose
// client leg is UNIX, or a client run without --rx-stamps, has none.
func clientWakes(samples []hop.Sample, discard int) *float64 {
	var sum float64
	var n int64
	for i, smp := range samples {
		if i < discard || smp.Failed != "" {
			continue
		}
		w := smp.RXWake
		if w == nil || w.Count <= 0 || float64(w.Count) < minStamped*float64(w.Count+w.Unstamped) {
			return nil
		}
		sum += w.Avg * float64(w.Count)
		n += w.Count
	}
	if n == 0 {
		return nil
	}
	mean := sum / float64(n)
	return &mean
}

// killGroup ends cmd's process group, or the process itself where there
// are no process groups.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && hosts.KillGroup(cmd.Process.Pid) != nil {
		cmd.Process.Kill()
	}
}

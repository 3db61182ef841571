package attach

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/porttest"
	"github.com/hoplat/hoplat/stats"
	"golang.org/x/sys/unix"
)

// relayEnv makes this test binary a relay of known cost (relayMain).
const relayEnv = "HOPLAT_ATTACH_TEST_RELAY"

// relayMain is the relay of known cost: one connection, one goroutine,
// each request read from the client, then spun or slept for a set time,
// then written upstream; the response goes back at once. Its listening
// address is its first line on stdout.
func relayMain(spec string) {
	f := strings.Fields(spec)
	if len(f) != 3 {
		fmt.Fprintf(os.Stderr, "relay: %q: want UPSTREAM MODE COST\n", spec)
		os.Exit(2)
	}
	upstream, mode := f[0], f[1]
	cost, err := time.ParseDuration(f[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	c, err := ln.Accept()
	if err != nil {
		os.Exit(1)
	}
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		os.Exit(1)
	}
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if err != nil {
			os.Exit(0)
		}
		switch mode {
		case "spin":
			for begin := time.Now(); time.Since(begin) < cost; {
			}
		case "sleep":
			time.Sleep(cost)
		}
		if _, err := u.Write(buf[:n]); err != nil {
			os.Exit(1)
		}
		if n, err = u.Read(buf); err != nil {
			os.Exit(1)
		}
		if _, err := c.Write(buf[:n]); err != nil {
			os.Exit(1)
		}
	}
}

// requireTracer skips t where the tracer cannot run.
func requireTracer(t *testing.T) {
	t.Helper()
	peer.Integration(t, "the tracer attached to a relay")
	peer.Root(t, "attach: needs root")
}

// echoServer serves echo on loopback until the test ends.
func echoServer(t *testing.T) net.Addr {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr()
}

// startRelay runs the relay of known cost on cpus and returns its pid and
// address, once it listens.
func startRelay(t *testing.T, upstream net.Addr, mode string, cost time.Duration, cpus affinity.CPUSet, own bool) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), relayEnv+"="+fmt.Sprint(upstream, " ", mode, " ", cost), "GOMAXPROCS=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := affinity.StartOn(cmd, cpus); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("relay: %v", err)
	}
	if own {
		ownCPU(t, cmd.Process.Pid)
	}
	return cmd.Process.Pid, strings.TrimSpace(line)
}

// ownCPU gives every thread of process pid SCHED_FIFO, so no task of the
// normal class takes its CPU while it runs or keeps it waiting when it
// wakes: a spin then puts all of its time on the CPU, in the direction it
// is spun in, however busy the host. Threads the runtime starts later
// inherit the policy from the thread that starts them. Under CPU sharing
// the scheduler moves a proxy's waits for its CPU in one direction with
// the CPU it spends in the other (a real effect, and one compare rightly
// calls); a test of attribution takes that sharing away instead.
func ownCPU(t *testing.T, pid int) {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 1}
		if err := unix.SchedSetAttr(tid, &attr, 0); err != nil {
			peer.Unavailable(t, fmt.Sprintf("give the relay its CPU (SCHED_FIFO): %v", err))
		}
	}
}

// measured is one relay's figures: the client's round trip and attach's
// report over the same requests.
type measured struct {
	rttP50   float64 // µs
	requests int64
	up       DirectionReport
	down     DirectionReport
	tracer   TracerReport
	wallS    float64
	report   *Report
	// inWindows is how many requests the client began while a window of
	// the session was open: those the hooks could see.
	inWindows int
}

// measure attaches to a relay of known cost, loads it for d with one
// closed-loop client and returns both views.
func measure(t *testing.T, mode string, cost, d time.Duration) measured {
	t.Helper()
	return measureDuty(t, mode, cost, d, Config{Window: 500 * time.Millisecond})
}

// measureDuty is measureOn with the relay's CPU shared as the host has it.
func measureDuty(t *testing.T, mode string, cost, d time.Duration, cfg Config) measured {
	t.Helper()
	return measureOn(t, mode, cost, d, cfg, false)
}

// measureOn is measure with the session's Window and Duty from cfg, the
// relay's CPU its own (ownCPU) when own is set.
func measureOn(t *testing.T, mode string, cost, d time.Duration, cfg Config, own bool) measured {
	t.Helper()
	cpu0 := affinity.NewCPUSet(0)
	pid, addr := startRelay(t, echoServer(t), mode, cost, cpu0, own)
	ctx := context.Background()
	cfg.PID = pid
	s, err := Open(ctx, cfg)
	if errors.Is(err, errors.ErrUnsupported) {
		peer.Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := stats.NewHistogram()
	begins := make([]time.Time, 0, 1<<16) // the client's, read after done
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 64)
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			begin := time.Now()
			begins = append(begins, begin)
			if _, err := c.Write(buf); err != nil {
				done <- err
				return
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				done <- err
				return
			}
			h.Record(int64(time.Since(begin)))
		}
	}()
	runErr := s.Run(ctx, d)
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	r := s.Report()
	m := measured{rttP50: stats.Us(h.Quantile(50)), requests: h.Count(), up: r.Directions[ToUpstream], down: r.Directions[ToClient],
		tracer: r.Tracer, wallS: r.DurationS, report: r}
	for _, b := range begins {
		for _, w := range r.Windows {
			if end := w.Start.Add(time.Duration(w.DurationS * float64(time.Second))); !b.Before(w.Start) && b.Before(end) {
				m.inWindows++
				break
			}
		}
	}
	t.Logf("%s %v: client p50 %.1f µs over %d; to_upstream %+v %+v; to_client %+v %+v; tracer %+v",
		mode, cost, m.rttP50, h.Count(), m.up.ResidenceUs, m.up.SplitUs, m.down.ResidenceUs, m.down.SplitUs, r.Tracer)
	// windows[] partition the session's chunks: each window's own,
	// per direction, sum to the report's.
	var perWindow [2]int64
	for _, w := range r.Windows {
		var sum int64
		for d, wd := range w.Directions {
			perWindow[d] += wd.Chunks
			sum += wd.Chunks
		}
		if sum != w.Chunks {
			t.Errorf("window at %v: %d chunks, its directions %d", w.Start, w.Chunks, sum)
		}
	}
	if perWindow[ToUpstream] != m.up.Chunks || perWindow[ToClient] != m.down.Chunks {
		t.Errorf("windows hold %v chunks, the report %d and %d", perWindow, m.up.Chunks, m.down.Chunks)
	}
	// Each request the hooks see is a chunk each way: at least half of
	// the requests the client began while a window was open (a session
	// without windows, duty 1, traces the whole of it). The requests
	// are counted by their begin times, not by the share of the session
	// traced: beside busy neighbours the scheduler moves the request
	// rate between windows and gaps.
	want := float64(h.Count())
	if len(r.Windows) > 0 {
		want = float64(m.inWindows)
	}
	for _, dr := range []DirectionReport{m.up, m.down} {
		if float64(dr.Chunks) < want/2 {
			t.Errorf("%s %v: %s has %d chunks for %d requests (%d begun in a window)", mode, cost, dr.Name, dr.Chunks, h.Count(), m.inWindows)
		}
		// An identity, not a speed: the split integrates each chunk's
		// thread timeline over its residence, a partition of it
		// (timeline.split), so the means differ by the report's rounding
		// to 0.01 µs alone, on any machine.
		if diff := dr.SplitUs.Sum() - dr.ResidenceUs.Mean; diff > 0.05*dr.ResidenceUs.Mean || diff < -0.05*dr.ResidenceUs.Mean {
			t.Errorf("%s %v: %s split sums to %.2f µs, mean residence %.2f", mode, cost, dr.Name, dr.SplitUs.Sum(), dr.ResidenceUs.Mean)
		}
	}
	return m
}

// TestDuty: at a duty of a quarter the hooks are attached a quarter of
// the session, in windows spread over it, and see about a quarter of the
// requests; the report says so.
func TestDuty(t *testing.T) {
	requireTracer(t)
	const d = 1200 * time.Millisecond
	const window = 100 * time.Millisecond
	m := measureDuty(t, "none", 0, d, Config{Window: window, Duty: 0.25})
	// The schedule's, on any machine: a window's timer and the 300 ms gap
	// after it are never early, so 1.2 s hold at most three windows and
	// the session at least its 1.2 s; every window but a last one cut
	// short holds its 100 ms. The second starts 0.4 s in, unless stopping
	// the first (draining one window's records) took the 0.7 s left. What
	// starting and stopping the hooks adds to each window is the
	// machine's, and is in traced_s: it is not held to a figure.
	ws := m.report.Windows
	var sum float64
	for i, w := range ws {
		sum += w.DurationS
		if i < len(ws)-1 && w.DurationS < window.Seconds()-0.005 {
			t.Errorf("window %d traced %.2f s, shorter than its %v", i, w.DurationS, window)
		}
	}
	if m.tracer.DutyPct != 25 || len(ws) < 2 || len(ws) > 3 || math.Abs(m.tracer.TracedS-sum) > 0.01*float64(len(ws)) || m.wallS < 1.1 {
		t.Errorf("duty %.0f%%, %d windows tracing %.2f s in all, traced %.2f s of %.2f s; want 25%%, 2 or 3 windows of 100 ms in 1.2 s",
			m.tracer.DutyPct, len(ws), sum, m.tracer.TracedS, m.wallS)
	}
	// The windows see the requests begun while the hooks are attached,
	// and none of those begun between them: a request that straddles a
	// window's edge is the slack. An attach that never let go would see
	// every request.
	traced := m.tracer.TracedS / m.wallS
	if m.up.Chunks > int64(1.5*float64(m.inWindows))+int64(len(ws)) || m.up.Chunks >= m.requests {
		t.Errorf("to_upstream: %d chunks of %d requests, %d begun in a window: the hooks did not let go",
			m.up.Chunks, m.requests, m.inWindows)
	}
	t.Logf("%d windows, traced %.2f s of %.2f s (%.0f%%); to_upstream saw %d chunks of %d requests, %d begun in a window",
		len(ws), m.tracer.TracedS, m.wallS, 100*traced, m.up.Chunks, m.requests, m.inWindows)
}

// TestKnownCost: a relay that spins, and one that sleeps, a set time
// before forwarding client->upstream, everything on CPU 0. attach's
// to_upstream p50 moves by what the client's round trip moves, within
// 10%; spun time is on_cpu (or runnable, where others' tasks preempt the
// spin), never blocked; slept time is not on_cpu; to_client does not move.
func TestKnownCost(t *testing.T) {
	requireTracer(t)
	prev, err := affinity.PinProcess(os.Getpid(), affinity.NewCPUSet(0))
	if err != nil {
		t.Skipf("pin the test to CPU 0: %v", err)
	}
	defer affinity.PinProcess(os.Getpid(), prev)
	const cost = 300 * time.Microsecond
	const d = 1500 * time.Millisecond
	base := measure(t, "none", 0, d)
	for _, mode := range []string{"spin", "sleep"} {
		m := measure(t, mode, cost, d)
		client := m.rttP50 - base.rttP50
		res := m.up.ResidenceUs.P50 - base.up.ResidenceUs.P50
		if diff := res - client; diff > 0.1*client || diff < -0.1*client {
			t.Errorf("%s: to_upstream p50 moved %.1f µs, the client's round trip %.1f", mode, res, client)
		}
		if moved := m.down.ResidenceUs.P50 - base.down.ResidenceUs.P50; moved > 0.1*client || moved < -0.1*client {
			t.Errorf("%s: to_client p50 moved %.1f µs (the client's round trip %.1f)", mode, moved, client)
		}
		onCPU := m.up.SplitUs.OnCPU - base.up.SplitUs.OnCPU
		costUs := stats.Us(int64(cost))
		switch mode {
		case "spin":
			// The relay spins by the clock: on a CPU others' tasks share,
			// what they preempt of it is runnable, as this run measures,
			// and never blocked.
			preempted := max(0, m.up.SplitUs.Runnable-base.up.SplitUs.Runnable)
			if onCPU < 0.8*costUs-preempted {
				t.Errorf("spin: on_cpu moved %.1f µs for %.0f µs spun (%.1f µs preempted)", onCPU, costUs, preempted)
			}
			if blocked := m.up.SplitUs.Blocked - base.up.SplitUs.Blocked; blocked > 0.2*costUs {
				t.Errorf("spin: blocked moved %.1f µs for %.0f µs spun", blocked, costUs)
			}
		case "sleep":
			if onCPU > 0.2*costUs {
				t.Errorf("sleep: on_cpu moved %.1f µs for %.0f µs slept", onCPU, costUs)
			}
			if off := m.up.SplitUs.Blocked + m.up.SplitUs.Runnable - base.up.SplitUs.Blocked - base.up.SplitUs.Runnable; off < 0.8*costUs {
				t.Errorf("sleep: blocked and runnable moved %.1f µs for %.0f µs slept", off, costUs)
			}
		}
	}
}

// startSocat runs socat TCP-LISTEN:port,fork in front of upstream and
// returns its address once it accepts.
func startSocat(t *testing.T, upstream net.Addr) string {
	t.Helper()
	socat := peer.Require(t, "socat")
	port := porttest.Closed(t)
	cmd := exec.Command(socat, fmt.Sprintf("TCP-LISTEN:%d,bind=127.0.0.1,fork,reuseaddr", port), "TCP:"+upstream.String())
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// socat listens once it has parsed its addresses: wait for the
	// socket in its fds (an event /proc shows), not for a time.
	deadline := time.Now().Add(5 * time.Second)
	for len(listeningPorts(cmd.Process.Pid, readFDs(cmd.Process.Pid).sockets)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("socat did not listen within 5 s")
		}
		runtime.Gosched()
	}
	return addr
}

// clients makes connections one after another until stop, each a few
// round trips: every one is a child socat forks.
func clients(addr string, stop <-chan struct{}, done chan<- error) {
	buf := make([]byte, 64)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			done <- err
			return
		}
		for range 50 {
			if _, err = c.Write(buf); err == nil {
				_, err = io.ReadFull(c, buf)
			}
			if err != nil {
				c.Close()
				done <- err
				return
			}
		}
		c.Close()
		select {
		case <-stop:
			done <- nil
			return
		default:
		}
	}
}

// TestSocatFork: --comm socat against socat TCP-LISTEN:…,fork follows
// the children forked after attaching, both ways.
func TestSocatFork(t *testing.T) {
	requireTracer(t)
	addr := startSocat(t, echoServer(t))
	ctx := context.Background()
	s, err := Open(ctx, Config{Comm: "socat", Window: 500 * time.Millisecond})
	if errors.Is(err, errors.ErrUnsupported) {
		peer.Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := len(s.pids)
	stop, done := make(chan struct{}), make(chan error, 1)
	go clients(addr, stop, done)
	runErr := s.Run(ctx, 1500*time.Millisecond)
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	r := s.Report()
	t.Logf("pids %v (%d at attach), connections %d, to_upstream %d chunks, to_client %d",
		r.Target.PIDs, before, r.Connections, r.Directions[ToUpstream].Chunks, r.Directions[ToClient].Chunks)
	if len(r.Target.PIDs) <= before {
		t.Errorf("no forked child followed: pids %v, %d at attach", r.Target.PIDs, before)
	}
	for _, d := range r.Directions {
		if d.Chunks == 0 {
			t.Errorf("%s has no chunks", d.Name)
		}
	}
}

package tracer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/stats"
)

// proc is one of hoplat's binaries started for a test, in a process
// group of its own, ended when the test ends.
type proc struct {
	pid    int
	addr   string // from its first "listening ADDR" line
	out    *bytes.Buffer
	stderr *bytes.Buffer // read once it has exited
	done   chan error
}

// start runs a hoplat binary pinned to cpus; a server's readiness is its
// "listening ADDR" line on stdout, which start waits for.
func start(t testing.TB, cpus affinity.CPUSet, listens bool, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(peer.Hoplat(t, name), args...)
	affinity.NewGroup(cmd)
	p := &proc{out: &bytes.Buffer{}, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := affinity.StartOn(cmd, cpus); err != nil {
		t.Fatal(err)
	}
	p.pid = cmd.Process.Pid
	lines := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			if first && listens {
				lines <- sc.Text()
				first = false
				continue
			}
			p.out.WriteString(sc.Text() + "\n")
		}
		close(lines)
	}()
	go func() {
		<-copied
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		hosts.TerminateGroup(p.pid)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			hosts.KillGroup(p.pid)
			select {
			case <-p.done:
			case <-time.After(5 * time.Second):
				t.Errorf("pid %d still running after SIGKILL", p.pid)
			}
		}
	})
	if listens {
		line, ok := <-lines
		a, found := strings.CutPrefix(line, "listening ")
		if !ok || !found {
			t.Fatalf("%s: no listening line (%q)", name, line)
		}
		p.addr = a
	}
	return p
}

// wait waits for a process that ends by itself (the load client).
func (p *proc) wait(t testing.TB) {
	t.Helper()
	err := <-p.done
	p.done <- err // for the cleanup
	if err != nil {
		t.Fatalf("pid %d: %v\n%s%s", p.pid, err, p.out, p.stderr)
	}
}

// p50 reads the load client's median round trip from its JSON report.
func (p *proc) p50(t testing.TB) float64 {
	t.Helper()
	var rep struct {
		Results []struct {
			Latency struct {
				P50 float64 `json:"p50"`
			} `json:"latency_us"`
		} `json:"results"`
	}
	if err := json.Unmarshal(p.out.Bytes(), &rep); err != nil || len(rep.Results) == 0 {
		t.Fatalf("pingpong report: %v\n%s", err, p.out)
	}
	return rep.Results[0].Latency.P50
}

// path is one topology of the tests: which CPUs each component gets.
type path struct {
	name                string
	relay               bool
	client, rel, server affinity.CPUSet
	io                  string // the client's --io; "" is blocking
	unix                bool   // the client's leg over a UNIX socket
}

var (
	cpu0 = affinity.NewCPUSet(0)
	cpu1 = affinity.NewCPUSet(1)
)

// topology starts the server and, for a relay path, an epoll relay in
// front of it, and returns the client's target and the components to
// follow.
func topology(t testing.TB, p path) (string, map[int]string) {
	listen := "tcp:127.0.0.1:0"
	if p.unix && !p.relay {
		listen = "unix:" + filepath.Join(t.TempDir(), "pongd.sock")
	}
	srv := start(t, p.server, true, "pongd", "--listen", listen, "--cpus", p.server.String())
	comps := map[int]string{srv.pid: "server"}
	target := srv.addr
	if p.relay {
		front := "TCP4-LISTEN:0,nodelay"
		if p.unix {
			front = "UNIX-LISTEN:" + filepath.Join(t.TempDir(), "relay.sock")
		}
		r := start(t, p.rel, true, "hoprelay", "--engine", "epoll", "--cpus", p.rel.String(),
			front, strings.Replace(srv.addr, "tcp:", "TCP4:", 1)+",nodelay")
		comps[r.pid] = "relay"
		target = r.addr
	}
	return target, comps
}

// runClient runs pingpong against target for d and, with tr, follows it
// while it runs.
func runClient(t testing.TB, tr *Tracer, cpus affinity.CPUSet, target string, d time.Duration) *proc {
	return runClientIO(t, tr, cpus, target, d, "blocking")
}

func runClientIO(t testing.TB, tr *Tracer, cpus affinity.CPUSet, target string, d time.Duration, io string) *proc {
	c := start(t, cpus, false, "pingpong", "--target", target, "--io", io,
		"--threads", "1", "--cpus", cpus.String(), "--time", d.String(), "--format", "json")
	if tr != nil {
		follow(t, tr, map[int]string{c.pid: "client"})
	}
	c.wait(t)
	return c
}

// follow follows the path's processes for the test.
func follow(t testing.TB, tr *Tracer, comps map[int]string) {
	for pid, c := range comps {
		if err := tr.Follow(pid, c); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Unfollow(pid) })
	}
}

func needCPUs(t *testing.T, n int) {
	online, err := affinity.OnlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if online.Len() < n {
		peer.Unavailable(t, fmt.Sprintf("needs %d CPUs, %s online", n, online))
	}
}

var paths = []path{
	{name: "direct packed", client: cpu0, server: cpu0},
	{name: "direct spread", client: cpu0, server: cpu1},
	{name: "epoll packed", relay: true, client: cpu0, rel: cpu0, server: cpu0},
	{name: "epoll spread", relay: true, client: cpu0, rel: cpu1, server: cpu0},
	{name: "direct packed netpoll", client: cpu0, server: cpu0, io: "netpoll"},
	{name: "epoll spread unix", relay: true, client: cpu0, rel: cpu1, server: cpu0, unix: true},
	{name: "direct packed unix", client: cpu0, server: cpu0, unix: true},
	{name: "epoll packed unix", relay: true, client: cpu0, rel: cpu0, server: cpu0, unix: true},
}

// TestTracedRequests traces real round trips on loopback (pingpong, the
// epoll relay, pongd) and checks each path's critical paths: requests
// found, segments that partition each round trip, that the events explain
// most of it, and that every segment belongs to a component of the path.
func TestTracedRequests(t *testing.T) {
	needCPUs(t, 2)
	var w Waterfall
	tr := openOrSkip(t, Config{})
	perEvent, err := tr.Calibrate(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("calibrated: %v per record", perEvent)
	for _, p := range paths {
		t.Run(strings.ReplaceAll(p.name, " ", "_"), func(t *testing.T) {
			target, comps := topology(t, p)
			follow(t, tr, comps)
			if err := tr.Start(); err != nil {
				t.Fatal(err)
			}
			io := p.io
			if io == "" {
				io = "blocking"
			}
			// 0.2 s: tens of thousands of requests packed, and their
			// records' assembly (under -race) seconds, not tens.
			c := runClientIO(t, tr, p.client, target, 200*time.Millisecond, io)
			trace, err := tr.Stop()
			if err != nil {
				t.Fatal(err)
			}
			reqs := trace.Requests()
			t.Logf("%s: %d events (lost %d, dropped %d), %d requests, client p50 %.1f µs",
				p.name, len(trace.Events), trace.Lost, trace.Dropped, len(reqs), c.p50(t))
			var kinds [kindEnd]int
			for _, e := range trace.Events {
				kinds[e.Kind]++
			}
			t.Logf("records by kind: %v", kindCounts(kinds[:]))
			for i := range reqs {
				if c := reqs[i].CoveragePct(); c < 80 {
					t.Logf("%d of %d requests explained < 80%%, e.g. (%.0f%%):\n%s", countBelow(reqs, 80), len(reqs), c, pathString(&reqs[i]))
					break
				}
			}
			if len(reqs) < 100 {
				t.Fatalf("%d requests found in %d events", len(reqs), len(trace.Events))
			}
			want := map[string]bool{"client": true, "server": true, "": true}
			if p.relay {
				want["relay"] = true
			}
			for _, r := range reqs {
				for _, g := range r.Segments {
					if g.End < g.Start || g.Duration() < 0 {
						t.Fatalf("negative segment %+v", g)
					}
					if !want[g.Component] {
						t.Fatalf("segment of component %q on %s: %+v", g.Component, p.name, g)
					}
				}
			}
			id, cov := IdentityPct(reqs), CoveragePct(reqs)
			med, _ := Quantile(reqs, 0.5)
			p99, _ := Quantile(reqs, 0.99)
			t.Logf("identity %.2f%%, coverage %.1f%% (median over requests)", id, cov)
			t.Logf("median request %v (tracer %v): %s", med.RTT(), med.Tracer(), med.Split())
			t.Logf("p99 request %v (tracer %v): %s", p99.RTT(), p99.Tracer(), p99.Split())
			t.Logf("median request's path:\n%s", pathString(&med))
			w.Add(p.name+" p50", &med)
			w.Add(p.name+" p99", &p99)
			// The client times a round trip from before its send to after
			// its receive; the trace, from the send's entry to the
			// receive's return: a little less (a clock read and Go's
			// system call wrapper, a small share of a round trip of two
			// system calls and a wake-up each way on any machine), never
			// far off. The traced requests are those the trace could
			// assemble, not every one the client counted: their median
			// may sit apart from the client's by as much as the round
			// trips spread here, half their interquartile range.
			q25, _ := Quantile(reqs, 0.25)
			q75, _ := Quantile(reqs, 0.75)
			spread := float64(q75.RTT()-q25.RTT()) / 2e3
			if rtt, p50 := float64(med.RTT())/1e3, c.p50(t); math.Abs(rtt-p50) > max(0.1*p50, spread) {
				t.Errorf("median traced round trip %.1f µs, the client's p50 %.1f µs (half the traced IQR %.1f µs)", rtt, p50, spread)
			}
			// Identity and coverage are shares of the walk, not speeds:
			// whether the segments tile each round trip (a segment's
			// tracer time is clamped to its span, so Duration + Tracer
			// is the span) and how much of it the followed wake-ups
			// explain (a lost record or an unfollowed waker leaves
			// SegOther). Neither scales with the machine.
			if !(id <= 5) {
				t.Errorf("identity %.2f%% > 5%%", id)
			}
			if !(cov >= 90) {
				t.Errorf("the events explain %.1f%% of the median request, want ≥ 90%%", cov)
			}
			if n := relaySegments(&med); p.relay && n == 0 {
				t.Errorf("relay path whose median request has no relay segment")
			}
		})
	}
	// The waterfall of every path's median and p99 request; kept where
	// HOPLAT_TRACER_OUT names a directory, to open in ui.perfetto.dev.
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	slices, flows := checkWaterfall(t, b.Bytes())
	t.Logf("trace.json: %d slices, %d flows, %d bytes", slices, flows, b.Len())
	if dir := os.Getenv("HOPLAT_TRACER_OUT"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "trace.json"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func kindCounts(n []int) string {
	var parts []string
	for k, c := range n {
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%v %d", Kind(k), c))
		}
	}
	return strings.Join(parts, ", ")
}

func countBelow(reqs []Request, pct float64) int {
	n := 0
	for i := range reqs {
		if reqs[i].CoveragePct() < pct {
			n++
		}
	}
	return n
}

func relaySegments(r *Request) int {
	n := 0
	for _, g := range r.Segments {
		if g.Component == "relay" && (g.Kind == SegUser || g.Kind == SegKernel) {
			n++
		}
	}
	return n
}

func pathString(r *Request) string {
	var b strings.Builder
	for _, g := range r.Segments {
		fmt.Fprintf(&b, "  %+8.2f µs %-9s %-7s tid %-7d cpu %2d %6.2f µs (%d events)", float64(g.Start-r.Start)/1e3,
			g.Kind, g.Component, g.Tid, g.CPU, float64(g.Duration())/1e3, g.Events)
		if g.By != 0 || g.Behind != 0 {
			fmt.Fprintf(&b, " by %d behind %d", g.By, g.Behind)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkOverhead runs packed round trips untraced, under the kernel's
// dispatch alone (programs on the tracer's tracepoints that return at
// once) and traced, in interleaved rounds (one of each per b.N, the order
// turning round), and reports each side's median p50 and what each adds:
// overhead_pct is the figure trace.overhead_pct reports, hooks_pct the
// floor under it that no program body can lower.
func BenchmarkOverhead(b *testing.B) {
	for _, p := range paths {
		if !strings.Contains(p.name, "packed") || p.io != "" {
			continue
		}
		b.Run(strings.ReplaceAll(p.name, " ", "_"), func(b *testing.B) {
			var quiet []string
			if os.Getenv("HOPLAT_TRACER_QUIET_SERVER") != "" {
				quiet = []string{"server"}
			}
			tr := openOrSkip(b, Config{WithoutSyscalls: quiet})
			perEvent, err := tr.Calibrate(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			empty := loadHooks(b, tr.objs.tracepoints, returnAtOnce)
			target, comps := topology(b, p)
			follow(b, tr, comps)
			var plain, hooked, traced []float64
			var reqs []Request
			const d = 500 * time.Millisecond
			rounds := []func(){
				func() { plain = append(plain, runClient(b, nil, p.client, target, d).p50(b)) },
				func() {
					empty.attach(b)
					defer empty.detach()
					hooked = append(hooked, runClient(b, nil, p.client, target, d).p50(b))
				},
				func() {
					if err := tr.Start(); err != nil {
						b.Fatal(err)
					}
					traced = append(traced, runClient(b, tr, p.client, target, d).p50(b))
					trace, err := tr.Stop()
					if err != nil {
						b.Fatal(err)
					}
					reqs = append(reqs, trace.Requests()...)
				},
			}
			for i := range b.N {
				// A round's place in the sequence would otherwise count as
				// its kind's.
				for j := range rounds {
					rounds[(i+j)%len(rounds)]()
				}
			}
			u, h, v := stats.Median(plain), stats.Median(hooked), stats.Median(traced)
			us := func(f float64) time.Duration { return time.Duration(f * 1e3) }
			med, _ := Quantile(reqs, 0.5)
			b.ReportMetric(float64(med.Events()), "events/request")
			b.ReportMetric(float64(perEvent.Nanoseconds()), "calibrated_ns/event")
			// The cost of one record between a round trip's wake-ups, where
			// the programs and slots are cold: the traced rounds' excess over
			// the records of the median request.
			if n := med.Events(); n > 0 && v > u {
				b.ReportMetric(float64((us(v)-us(u)).Nanoseconds())/float64(n), "in_situ_ns/event")
			}
			b.ReportMetric(u, "untraced_p50_us")
			b.ReportMetric(v, "traced_p50_us")
			b.ReportMetric(100*(h-u)/u, "hooks_pct")
			b.ReportMetric(100*(v-u)/u, "overhead_pct")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestWithoutSyscalls: a component whose system calls are not recorded
// still has its time on the path, all of it user time.
func TestWithoutSyscalls(t *testing.T) {
	needCPUs(t, 2)
	tr := openOrSkip(t, Config{WithoutSyscalls: []string{"server"}})
	p := paths[3] // epoll spread
	target, comps := topology(t, p)
	follow(t, tr, comps)
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	runClient(t, tr, p.client, target, 300*time.Millisecond)
	trace, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	reqs := trace.Requests()
	if len(reqs) < 100 {
		t.Fatalf("%d requests", len(reqs))
	}
	var server, relayCalls int
	for _, r := range reqs {
		for _, g := range r.Segments {
			switch {
			case g.Component == "server" && (g.Kind == SegKernel || g.Kind == SegLeg):
				t.Fatalf("server segment %v with its system calls unrecorded", g.Kind)
			case g.Component == "server":
				server++
			case g.Component == "relay" && g.Kind == SegKernel:
				relayCalls++
			}
		}
	}
	if server == 0 || relayCalls == 0 {
		t.Errorf("%d server segments, %d relay kernel segments", server, relayCalls)
	}
	med, _ := Quantile(reqs, 0.5)
	t.Logf("%d requests, identity %.2f%%, median %v: %s", len(reqs), IdentityPct(reqs), med.RTT(), med.Split())
}

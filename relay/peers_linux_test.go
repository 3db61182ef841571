package relay_test

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/porttest"
	"github.com/hoplat/hoplat/stats"
)

// peerRelay is a relay running as its own process: one of hoprelay's
// engines, socat, or HAProxy (mode tcp, one thread).
type peerRelay struct {
	name string
	addr string // 127.0.0.1:PORT
	cmd  *exec.Cmd
}

// epoll-nobatch is the epoll engine with --no-batch: one recvfrom and one
// sendto per message, what batching is measured against.
var peerKinds = []string{"goroutine", "epoll", "epoll-nobatch", "splice", "sockmap", "socat", "haproxy"}

func startPeerRelay(b *testing.B, kind, upstream string, cpus affinity.CPUSet) *peerRelay {
	b.Helper()
	p := &peerRelay{name: kind}
	switch kind {
	case "socat":
		port := strconv.Itoa(porttest.Closed(b))
		p.addr = "127.0.0.1:" + port
		// backlog=1024: socat listens with a backlog of 5, and the
		// 64 connections pingpong opens at once overflow it; a dropped
		// handshake waits seconds for its retransmission.
		p.cmd = exec.Command(peer.Require(b, "socat"), "TCP4-LISTEN:"+port+",bind=127.0.0.1,reuseaddr,fork,nodelay,backlog=1024", "TCP4:"+upstream+",nodelay")
	case "haproxy":
		port := strconv.Itoa(porttest.Closed(b))
		p.addr = "127.0.0.1:" + port
		cfg := filepath.Join(b.TempDir(), "haproxy.cfg")
		// maxconn such that 2 fds per connection fit the 20,000 fd limit.
		os.WriteFile(cfg, []byte(fmt.Sprintf("global\n\tnbthread 1\n\tmaxconn 9500\ndefaults\n\tmode tcp\n\ttimeout connect 5s\n\ttimeout client 1h\n\ttimeout server 1h\nlisten relay\n\tbind %s\n\tserver upstream %s\n", p.addr, upstream)), 0o600)
		p.cmd = exec.Command(peer.Require(b, "haproxy"), "-db", "-f", cfg)
	case "epoll-nobatch":
		p.cmd = exec.Command(peer.Hoplat(b, "hoprelay"), "--engine", "epoll", "--no-batch", "tcp:127.0.0.1:0", "tcp:"+upstream)
	default:
		p.cmd = exec.Command(peer.Hoplat(b, "hoprelay"), "--engine", kind, "tcp:127.0.0.1:0", "tcp:"+upstream)
	}
	p.start(b, cpus)
	return p
}

// start runs the relay or server on cpus and returns once it listens:
// hoplat's binaries say so in their first line ("listening tcp:ADDR",
// which sets p.addr); socat and HAProxy, which print no such line, are
// probed at p.addr until they accept.
func (p *peerRelay) start(b *testing.B, cpus affinity.CPUSet) {
	b.Helper()
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	p.cmd.Stderr = os.Stderr
	// socat's forked children and HAProxy's and hoprelay's threads all
	// inherit the mask StartOn gives the process.
	if err := affinity.StartOn(p.cmd, cpus); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	checkPinned(b, p.name, p.cmd.Process.Pid, cpus)
	if p.addr == "" {
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatalf("%s: no readiness line: %v", p.name, err)
		}
		addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening tcp:")
		if !ok {
			b.Fatalf("%s: first line %q, want \"listening tcp:ADDR\"", p.name, line)
		}
		p.addr = addr
		go io.Copy(io.Discard, r)
		return
	}
	go io.Copy(io.Discard, stdout)
	// socat and HAProxy print no readiness line: probe until they accept.
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", p.addr)
		if err == nil {
			c.Close()
			return
		}
		if i == 200 {
			b.Fatalf("%s never listened on %s: %v", p.name, p.addr, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// checkPinned fails the benchmark unless process pid may run on exactly
// cpus: a figure from a process the placement did not reach is not one.
func checkPinned(b *testing.B, what string, pid int, cpus affinity.CPUSet) {
	b.Helper()
	got, err := affinity.ProcessCPUs(pid)
	if err != nil {
		b.Fatal(err)
	}
	if !got.Equal(cpus) {
		b.Fatalf("%s (pid %d) runs on CPUs %s, placed on %s", what, pid, got, cpus)
	}
}

func (p *peerRelay) stop() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Signal(os.Interrupt)
		p.cmd.Wait()
	}
}

func (p *peerRelay) rss(b *testing.B) int64 {
	b.Helper()
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(s), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// cpu is the CPU time the relay has used: its threads', and for socat its
// children's, live or reaped (affinity.ProcessCPUTime).
func (p *peerRelay) cpu(b *testing.B) time.Duration {
	b.Helper()
	d, err := affinity.ProcessCPUTime(p.cmd.Process.Pid)
	if err != nil {
		b.Fatalf("%s: %v", p.name, err)
	}
	return d
}

// startHoplat starts one of the suite's servers on cpus with args and
// returns it with the address its first line names ("listening
// tcp:ADDR").
func startHoplat(b *testing.B, cpus affinity.CPUSet, name string, args ...string) *peerRelay {
	b.Helper()
	p := &peerRelay{name: name, cmd: exec.Command(peer.Hoplat(b, name), args...)}
	p.start(b, cpus)
	return p
}

// runPingpong runs the suite's pingpong on cpus against addr with conns
// connections for d, default flags otherwise, and returns its tps and the
// round trips it completed.
func runPingpong(b *testing.B, cpus affinity.CPUSet, addr string, conns int, d string) (tps float64, n int64) {
	b.Helper()
	cmd := exec.Command(peer.Hoplat(b, "pingpong"), "--target", "tcp:"+addr, "--threads", strconv.Itoa(conns), "--time", d, "--format", "json")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := affinity.StartOn(cmd, cpus); err != nil {
		b.Fatal(err)
	}
	checkPinned(b, "pingpong", cmd.Process.Pid, cpus)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("pingpong via %s: %v\n%s", addr, err, errb.String())
	}
	var rep struct {
		Results []struct {
			TPS          struct{ Median float64 } `json:"tps"`
			Transactions int64                    `json:"transactions"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil || len(rep.Results) != 1 || rep.Results[0].Transactions == 0 {
		b.Fatalf("pingpong via %s: report %v: %.200s", addr, err, out.String())
	}
	return rep.Results[0].TPS.Median, rep.Results[0].Transactions
}

// loadProc is a client or server of BenchmarkPeers: the test binary
// re-run in one of the modes loadEnv lists, on the CPUs of its component.
type loadProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startLoad(b *testing.B, cpus affinity.CPUSet, mode ...string) *loadProc {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	p := &loadProc{cmd: exec.Command(exe, "-test.run=^$")}
	p.cmd.Env = append(os.Environ(), loadEnv+"="+strings.Join(mode, " "))
	p.cmd.Stderr = os.Stderr
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	p.out = bufio.NewReader(stdout)
	if err := affinity.StartOn(p.cmd, cpus); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	checkPinned(b, "load "+mode[0], p.cmd.Process.Pid, cpus)
	return p
}

// expect reads the process's next line, which must start with word, and
// returns the rest.
func (p *loadProc) expect(b *testing.B, word string) string {
	b.Helper()
	line, err := p.out.ReadString('\n')
	if err != nil {
		p.stop()
		b.Fatalf("load %v: want %q line, got %q: %v (exit %v)", p.cmd.Env[len(p.cmd.Env)-1], word, line, err, p.cmd.ProcessState)
	}
	line = strings.TrimSpace(line)
	if line == word {
		return ""
	}
	rest, ok := strings.CutPrefix(line, word+" ")
	if !ok {
		b.Fatalf("load: want %q line, got %q", word, line)
	}
	return rest
}

func (p *loadProc) float(b *testing.B, word string) float64 {
	b.Helper()
	v, err := strconv.ParseFloat(p.expect(b, word), 64)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// stop closes the process's stdin, which ends every mode, and reaps it.
func (p *loadProc) stop() {
	if p.cmd.ProcessState == nil {
		p.stdin.Close()
		p.cmd.Wait()
	}
}

// peerPlacement is where BenchmarkPeers runs its client, relay and server
// (affinity.ParsePlacement's spec, from HOPLAT_RELAY_PLACEMENT). The
// default puts all three on the first online CPU, for every relay alike.
// With one CPU for the relay and the other for client and server, the
// load is the limit, not the relay: over a 1 GiB stream (relay on CPU 1,
// stream client and sink on CPU 0) the splice engine used 27% of its CPU,
// HAProxy 20%, the epoll engine 50% (utime+stime from /proc over the
// stream), while the client's CPU was full, so the figure would rank the
// load generator. On one CPU each figure is the
// inverse of the path's whole CPU cost per byte or per round trip, of
// which the relay's share is what differs; no relay can borrow a second
// CPU (Go's extra threads, socat's forks), and none profits from the
// scheduler's luck in spreading them, which is all an unpinned figure on
// a VM measures. PLACEMENT=spread in scripts/bench-relay.sh moves the
// server to the second CPU, as for its sockperf table.
func peerPlacement(b *testing.B) (client, relay, server affinity.CPUSet, name string) {
	b.Helper()
	spec := os.Getenv("HOPLAT_RELAY_PLACEMENT")
	if spec == "" {
		spec = "same-core"
	}
	online, err := affinity.OnlineCPUs()
	if err != nil {
		b.Fatal(err)
	}
	pl, err := affinity.ParsePlacement(spec, online)
	if err != nil {
		b.Fatal(err)
	}
	var sets [3]affinity.CPUSet
	var parts []string
	for i, comp := range []string{"client", "relay", "server"} {
		cpus, ok := pl.For(comp)
		if !ok {
			b.Fatalf("placement %q leaves %s unplaced: every process of a figure is pinned", spec, comp)
		}
		sets[i] = cpus
		parts = append(parts, comp+"="+strings.ReplaceAll(cpus.String(), ",", ";"))
	}
	return sets[0], sets[1], sets[2], strings.Join(parts, ",")
}

// BenchmarkPeers compares the engines with socat and HAProxy as separate
// processes, in interleaved rounds: tps with 64 connections ping-ponging 64
// bytes, a 1 GiB stream, and RSS per idle relayed connection. Client,
// relay and server are three processes pinned as peerPlacement says, and
// the sub-benchmark's name states the placement beside every figure:
// BenchmarkPeers/client=0,relay=0,server=0/tps64. Each figure is the
// median of the rounds.
// HOPLAT_RELAY_ROUNDS, HOPLAT_RELAY_CONNS, HOPLAT_RELAY_PEERS (a comma
// list of relays), HOPLAT_RELAY_PLACEMENT, HOPLAT_RELAY_TIME (each tps64
// run, 2s) and HOPLAT_RELAY_STREAM (the stream's bytes, 1 GiB) tune it;
// make test cuts them so that the benchmark runs once, quickly.
func BenchmarkPeers(b *testing.B) {
	rounds := envInt("HOPLAT_RELAY_ROUNDS", 3)
	runTime := cmp.Or(os.Getenv("HOPLAT_RELAY_TIME"), "2s")
	total := envInt("HOPLAT_RELAY_STREAM", 1<<30)
	peerKinds := peerKinds
	if v := os.Getenv("HOPLAT_RELAY_PEERS"); v != "" {
		peerKinds = strings.Split(v, ",")
	}
	clientCPUs, relayCPUs, serverCPUs, place := peerPlacement(b)
	b.Run(place, func(b *testing.B) {
		b.Run("tps64", func(b *testing.B) {
			// The suite's own client and server, with their default
			// flags, as a user runs them: with all three processes on one
			// CPU, tps is the inverse of the path's whole CPU per round
			// trip, and a heavier load generator only dilutes what the
			// relays differ by. The relay's own CPU per round trip is
			// reported beside it, the figure no load generator moves;
			// sockmap's is near zero because its redirect runs in the
			// softirq of the peer's send, charged to the peer.
			srv := startHoplat(b, serverCPUs, "pongd", "--listen", "tcp:127.0.0.1:0")
			up := srv.addr
			relays := map[string]*peerRelay{}
			for _, k := range peerKinds {
				relays[k] = startPeerRelay(b, k, up, relayCPUs)
			}
			tps := map[string][]float64{}
			cpu := map[string][]float64{}
			for range rounds {
				for _, k := range peerKinds {
					before := relays[k].cpu(b)
					rate, n := runPingpong(b, clientCPUs, relays[k].addr, 64, runTime)
					after := relays[k].cpu(b)
					tps[k] = append(tps[k], rate)
					cpu[k] = append(cpu[k], (after-before).Seconds()*1e6/float64(n))
				}
			}
			for _, k := range peerKinds {
				b.ReportMetric(stats.Median(tps[k]), "tps-"+k)
				b.ReportMetric(stats.Median(cpu[k]), "us-cpu/rt-"+k)
			}
		})
		b.Run("stream1GiB", func(b *testing.B) {
			sink := startLoad(b, serverCPUs, "sink")
			up := sink.expect(b, "listening")
			// Every relay, sockmap too: its verdict drops the segments TCP
			// hands it twice (relay/doc.go), and the sink's byte count
			// below would catch one it let through.
			streamKinds := peerKinds
			relays := map[string]*peerRelay{}
			for _, k := range streamKinds {
				relays[k] = startPeerRelay(b, k, up, relayCPUs)
			}
			rate := map[string][]float64{}
			for range rounds {
				for _, k := range streamKinds {
					c := startLoad(b, clientCPUs, "stream", relays[k].addr, strconv.Itoa(total))
					secs := c.float(b, "secs")
					c.stop()
					// The client's EOF follows the sink's close, which
					// follows its count.
					if got := sink.expect(b, "got"); got != strconv.Itoa(total) {
						b.Fatalf("%s: sink got %s bytes of %d", k, got, total)
					}
					rate[k] = append(rate[k], float64(total)/secs/1e6)
				}
			}
			for _, k := range streamKinds {
				b.ReportMetric(stats.Median(rate[k]), "MB/s-"+k)
			}
		})
		b.Run("idleRSS", func(b *testing.B) {
			// Each idle connection costs the goroutine engine 6 fds (two
			// sockets and, while Go's splice waits, a pipe per direction): N
			// stays within the 20,000-fd limit for every relay.
			n := envInt("HOPLAT_RELAY_CONNS", 3000)
			sink := startLoad(b, serverCPUs, "sink")
			up := sink.expect(b, "listening")
			go io.Copy(io.Discard, sink.out) // "got 1" per connection at the end
			for _, k := range []string{"goroutine", "epoll", "splice", "haproxy"} {
				p := startPeerRelay(b, k, up, relayCPUs)
				before := p.rss(b)
				c := startLoad(b, clientCPUs, "hold", p.addr, strconv.Itoa(n))
				c.expect(b, "held")
				time.Sleep(500 * time.Millisecond) // settle: measuring, not waiting for readiness
				after := p.rss(b)
				c.stop()
				p.stop()
				b.ReportMetric(float64(after-before)/float64(n), "B/conn-"+k)
			}
		})
	})
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

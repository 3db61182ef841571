package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/await"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/relay"
)

// TestHoprelayEndToEnd runs the binary as a user would, with socat's
// address syntax: readiness line, relaying UNIX→TCP, stats on SIGUSR1 and
// at exit, clean exit on SIGTERM with the UNIX path removed.
func TestHoprelayEndToEnd(t *testing.T) {
	bin := peer.Hoplat(t, "hoprelay")
	up := startEcho(t)
	dir, err := os.MkdirTemp("", "hr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "mysql.sock")
	stats := filepath.Join(dir, "stats.json")
	for _, engine := range []string{"goroutine", "epoll", "splice"} {
		t.Run(engine, func(t *testing.T) {
			os.Remove(stats)
			cmd, line, err := startRelay(t, bin, "--engine", engine, "--stats", stats,
				"UNIX-LISTEN:"+sock+",fork", "TCP4:"+up.Addr().String()+",nodelay")
			if want := "listening unix:" + sock + "\n"; err != nil || line != want {
				t.Fatalf("readiness line %q, %v; want %q", line, err, want)
			}
			c, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			echoPing(t, c)
			cmd.Process.Signal(syscall.SIGUSR1)
			waitFile(t, stats)
			c.Close()
			stopTerm(t, cmd)
			if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("UNIX path left behind: %v", err)
			}
			var s struct {
				Schema      string `json:"schema"`
				Connections struct {
					Accepted int `json:"accepted"`
				} `json:"connections"`
			}
			b, _ := os.ReadFile(stats)
			if err := json.Unmarshal(b, &s); err != nil || s.Schema != "hoplat.relay.v1" || s.Connections.Accepted != 1 {
				t.Errorf("stats at exit: %v\n%s", err, b)
			}
		})
	}
}

// waitFile waits (bounded) for the stats file SIGUSR1 asked for: the
// signal is asynchronous, and hoprelay renames the finished file into
// place, so its appearance is the answer.
func waitFile(t *testing.T, path string) {
	t.Helper()
	// A bound on a wait: the file is written in ms; 5 s says never.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := await.File(ctx, path, nil); err != nil {
		t.Fatalf("%s not written after SIGUSR1: %v", path, err)
	}
}

// startRelay starts hoprelay (bin) with args and reads its first stdout
// line, the readiness line, for the caller to check. The process is killed
// and reaped when t ends, if it still runs.
func startRelay(t *testing.T, bin string, args ...string) (cmd *exec.Cmd, line string, err error) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	line, err = bufio.NewReader(stdout).ReadString('\n')
	return cmd, line, err
}

// startEcho is a TCP upstream on loopback that sends back what each
// connection sends it, closed when t ends.
func startEcho(t *testing.T) net.Listener {
	t.Helper()
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	go func() {
		for {
			c, err := up.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return up
}

// echoPing sends "ping" on c, through the relay to the echo upstream, and
// wants it back within 10 s.
func echoPing(t *testing.T, c net.Conn) {
	t.Helper()
	c.Write([]byte("ping"))
	buf := make([]byte, 4)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo %q, %v", buf, err)
	}
}

// stopTerm stops hoprelay as a service manager would, with SIGTERM, and
// wants it to exit by itself with socat's status for that signal.
func stopTerm(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	stopSignal(t, cmd, syscall.SIGTERM)
}

// stopSignal sends sig and wants the exit status 128+sig, the relay's
// own (not the signal's default action, which would leave no stats).
func stopSignal(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) {
	t.Helper()
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !exit.Exited() || exit.ExitCode() != 128+int(sig) {
		t.Fatalf("exit after %v: %v; want exit status %d", sig, err, 128+int(sig))
	}
}

// TestHoprelaySeveralUpstreams: CONNECT given three times, the first
// refusing, relays every connection to the two that listen and reports
// each upstream's share in --stats.
func TestHoprelaySeveralUpstreams(t *testing.T) {
	bin := peer.Hoplat(t, "hoprelay")
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()
	a, b := startEcho(t), startEcho(t)
	dir := t.TempDir()
	stats := filepath.Join(dir, "stats.json")
	cmd, line, err := startRelay(t, bin, "--engine", "epoll", "--stats", stats, "--retry", "1m",
		"TCP4-LISTEN:0", "tcp:"+deadAddr, "TCP4:"+a.Addr().String()+",nodelay", "tcp:"+b.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening tcp4:")
	if !ok {
		t.Fatalf("readiness line %q", line)
	}
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		echoPing(t, c)
		c.Close()
	}
	stopTerm(t, cmd)
	var s struct {
		Config struct {
			Balance string `json:"balance"`
		} `json:"config"`
		Connections struct {
			UpstreamFailed int `json:"upstream_failed"`
		} `json:"connections"`
		Upstreams []struct {
			Connections int  `json:"connections"`
			Failed      int  `json:"failed"`
			Down        bool `json:"down"`
		} `json:"upstreams"`
	}
	raw, _ := os.ReadFile(stats)
	if err := json.Unmarshal(raw, &s); err != nil || len(s.Upstreams) != 3 {
		t.Fatalf("stats: %v\n%s", err, raw)
	}
	u := s.Upstreams
	if s.Config.Balance != "roundrobin" || s.Connections.UpstreamFailed != 0 || u[0].Failed != 1 || !u[0].Down ||
		u[0].Connections != 0 || u[1].Connections != 2 || u[2].Connections != 2 {
		t.Errorf("want the dead upstream tried once and down, two connections each for the others:\n%s", raw)
	}
}

// TestHoprelayFailoverUnderLoad: hoprelay in front of three pongd MySQL
// mocks, pingpong's point-selects on six connections through it. One
// server is killed in the middle of the run: the connections it held fail,
// pingpong counts the errors and reconnects, every new connection goes to
// the two left, and the run ends on time, for every engine.
func TestHoprelayFailoverUnderLoad(t *testing.T) {
	relayBin, pongd, pingpong := peer.Hoplat(t, "hoprelay"), peer.Hoplat(t, "pongd"), peer.Hoplat(t, "pingpong")
	for _, engine := range []string{"goroutine", "epoll", "splice", "sockmap"} {
		t.Run(engine, func(t *testing.T) {
			if err := relay.CheckSockmap(); engine == "sockmap" && err != nil {
				peer.Unavailable(t, err.Error())
			}
			var servers []*exec.Cmd
			var ups []string
			for range 3 {
				cmd, line, err := startRelay(t, pongd, "--proto", "mysql", "--user", "hoplat", "--password", "hoplat", "--listen", "tcp:127.0.0.1:0")
				addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
				if err != nil || !ok {
					t.Fatalf("pongd: %q, %v", line, err)
				}
				servers = append(servers, cmd)
				ups = append(ups, addr)
			}
			stats := filepath.Join(t.TempDir(), "stats.json")
			hr, line, err := startRelay(t, relayBin, append([]string{"--engine", engine, "--stats", stats, "TCP4-LISTEN:0"}, ups...)...)
			entry, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
			if err != nil || !ok {
				t.Fatalf("hoprelay: %q, %v", line, err)
			}
			load := exec.Command(pingpong, "--target", entry, "--proto", "mysql", "--user", "hoplat", "--password", "hoplat",
				"--command", "point-select", "--threads", "6", "--time", "3s", "--format", "json", "--report-interval", "100ms")
			var out bytes.Buffer
			stderr := &firstLine{seen: make(chan struct{})}
			load.Stdout, load.Stderr = &out, stderr
			began := time.Now()
			if err := load.Start(); err != nil {
				t.Fatal(err)
			}
			// Once all six connections are up (each upstream has two) and
			// every worker has logged in and prepared its statement
			// (pingpong's first progress line comes after the last),
			// the second server dies. Killed during a worker's set-up,
			// it failed the run: a connection that never began.
			select {
			case <-stderr.seen:
			case <-time.After(10 * time.Second):
				t.Fatalf("pingpong printed no progress line: %s", stderr)
			}
			var before relayStats
			deadline := time.Now().Add(10 * time.Second)
			for before.connections() < 6 {
				if time.Now().After(deadline) {
					t.Fatalf("pingpong's connections never reached the upstreams: %+v", before)
				}
				before = readStats(t, hr, stats)
			}
			servers[1].Process.Kill()
			servers[1].Wait()
			err = load.Wait()
			took := time.Since(began)
			// pingpong exits 1 when requests failed, the report written.
			var exit *exec.ExitError
			if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && strings.Contains(stderr.String(), "reconnects")) {
				t.Fatalf("pingpong: %v\n%s", err, stderr.String())
			}
			// pingpong's run is 3 s by its own clock whatever the machine;
			// the rest is starting and stopping processes, tens of ms.
			// 15 s says it hung on the killed upstream instead.
			if took > 15*time.Second {
				t.Errorf("a 3 s run took %v", took)
			}
			var rep struct {
				Results []struct {
					TPS        struct{ Mean float64 } `json:"tps"`
					Errors     int64                  `json:"errors"`
					Reconnects int64                  `json:"reconnects"`
				} `json:"results"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Results) != 1 {
				t.Fatalf("pingpong's report: %v\n%s", err, out.Bytes())
			}
			r := rep.Results[0]
			after := readStats(t, hr, stats)
			t.Logf("errors %d, reconnects %d, tps %.0f; upstreams before %+v after %+v", r.Errors, r.Reconnects, r.TPS.Mean, before.Upstreams, after.Upstreams)
			if r.Errors == 0 || r.Reconnects == 0 || r.TPS.Mean <= 0 {
				t.Errorf("errors %d, reconnects %d, tps %.0f: want the cut connections counted and replaced", r.Errors, r.Reconnects, r.TPS.Mean)
			}
			// A dying process closes its descriptors one by one: a client
			// whose connection was reset first can reconnect while the
			// listener still queues, once (sockmap, 1 run in about 10
			// here: errors 3, the killed server 2 -> 3 connections, no
			// refusal). Any other new connection, or none refused and
			// none queued, is a failover that did not happen.
			killed := after.Upstreams[1]
			dying := killed.Connections == before.Upstreams[1].Connections+1 && r.Errors > r.Reconnects
			if !dying && (killed.Connections != before.Upstreams[1].Connections || killed.Failed == 0) {
				t.Errorf("the killed server: %+v before, %+v after (errors %d, reconnects %d): want no new connection, its refusals counted", before.Upstreams[1], killed, r.Errors, r.Reconnects)
			}
			if got := after.Upstreams[0].Connections + after.Upstreams[2].Connections; got < before.Upstreams[0].Connections+before.Upstreams[2].Connections+int64(r.Reconnects) {
				t.Errorf("the others took %d connections in all, fewer than pingpong's %d reconnects: %+v", got, r.Reconnects, after.Upstreams)
			}
			if after.Connections.UpstreamFailed != 0 {
				t.Errorf("upstream_failed %d: a client connection found no upstream", after.Connections.UpstreamFailed)
			}
			stopTerm(t, hr)
		})
	}
}

// firstLine keeps what a process writes and closes seen at its first
// complete line.
type firstLine struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	seen chan struct{}
	once sync.Once
}

func (f *firstLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.Write(p)
	if bytes.IndexByte(f.buf.Bytes(), '\n') >= 0 {
		f.once.Do(func() { close(f.seen) })
	}
	return len(p), nil
}

func (f *firstLine) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

type relayStats struct {
	Partial       bool   `json:"partial"`
	PartialReason string `json:"partial_reason"`
	Connections   struct {
		UpstreamFailed int64 `json:"upstream_failed"`
	} `json:"connections"`
	Upstreams []struct {
		Connections int64 `json:"connections"`
		Failed      int64 `json:"failed"`
	} `json:"upstreams"`
}

func (s relayStats) connections() int64 {
	var n int64
	for _, u := range s.Upstreams {
		n += u.Connections
	}
	return n
}

// readStats asks hoprelay for its stats now (SIGUSR1) and reads them.
func readStats(t *testing.T, hr *exec.Cmd, path string) relayStats {
	t.Helper()
	os.Remove(path)
	hr.Process.Signal(syscall.SIGUSR1)
	waitFile(t, path)
	var s relayStats
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &s); err != nil || len(s.Upstreams) != 3 {
		t.Fatalf("stats: %v\n%s", err, b)
	}
	if want := "snapshot while serving: live connections counted so far"; !s.Partial || s.PartialReason != want {
		t.Errorf("a snapshot while serving: partial %v %q, want true %q", s.Partial, s.PartialReason, want)
	}
	return s
}

// TestHoprelayStatsBound runs the binary on port 0: --stats names the port
// the kernel chose, as the readiness line does; the SIGUSR1 snapshot is
// marked partial (the relay still serves) and the one SIGINT and SIGTERM
// leave behind is whole, a signal being a relay's normal end.
func TestHoprelayStatsBound(t *testing.T) {
	bin := peer.Hoplat(t, "hoprelay")
	up := startEcho(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			stats := filepath.Join(t.TempDir(), "stats.json")
			cmd, line, err := startRelay(t, bin, "--stats", stats, "TCP4-LISTEN:0,reuseaddr", "TCP4:"+up.Addr().String())
			addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening tcp4:127.0.0.1:")
			if err != nil || !ok || addr == "0" {
				t.Fatalf("readiness line %q, %v", line, err)
			}
			want := "tcp4-listen:" + addr + ",reuseaddr,bind=127.0.0.1"
			read := func() (s struct {
				Partial       bool   `json:"partial"`
				PartialReason string `json:"partial_reason"`
				Config        struct {
					Listen  string `json:"listen"`
					Wake    string `json:"wake"`
					WakeWhy string `json:"wake_why"`
				} `json:"config"`
			}) {
				t.Helper()
				b, _ := os.ReadFile(stats)
				if err := json.Unmarshal(b, &s); err != nil {
					t.Fatalf("stats: %v\n%s", err, b)
				}
				return s
			}
			cmd.Process.Signal(syscall.SIGUSR1)
			waitFile(t, stats)
			if s := read(); s.Config.Listen != want || !s.Partial || s.PartialReason == "" {
				t.Errorf("SIGUSR1 stats: listen %q, partial %v %q; want %q, partial with a reason", s.Config.Listen, s.Partial, s.PartialReason, want)
			} else if (s.Config.Wake == "") != (s.Config.WakeWhy == "") {
				t.Errorf("SIGUSR1 stats: wake %q, why %q: want both or neither", s.Config.Wake, s.Config.WakeWhy)
			}
			os.Remove(stats)
			stopSignal(t, cmd, sig)
			if s := read(); s.Config.Listen != want || s.Partial || s.PartialReason != "" {
				t.Errorf("stats at exit: listen %q, partial %v %q; want %q, whole", s.Config.Listen, s.Partial, s.PartialReason, want)
			}
		})
	}
}

// TestHoprelayInterruptedMidRun: SIGINT while a client is still connected
// ends the relay after --grace, with the stats of what it relayed so far
// marked partial, saying which signal and how many connections were cut,
// and exit status 130.
func TestHoprelayInterruptedMidRun(t *testing.T) {
	bin := peer.Hoplat(t, "hoprelay")
	up := startEcho(t)
	for _, engine := range []string{"goroutine", "epoll", "splice"} {
		t.Run(engine, func(t *testing.T) {
			stats := filepath.Join(t.TempDir(), "stats.json")
			cmd, line, err := startRelay(t, bin, "--engine", engine, "--grace", "50ms", "--stats", stats,
				"TCP4-LISTEN:0", "TCP4:"+up.Addr().String())
			addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening tcp4:")
			if err != nil || !ok {
				t.Fatalf("readiness line %q, %v", line, err)
			}
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for range 3 {
				echoPing(t, c)
			}
			stopSignal(t, cmd, syscall.SIGINT)
			b, err := os.ReadFile(stats)
			var s struct {
				Partial       bool   `json:"partial"`
				PartialReason string `json:"partial_reason"`
				Connections   struct {
					Accepted int64 `json:"accepted"`
				} `json:"connections"`
				Directions struct {
					ClientToUpstream struct {
						Bytes int64 `json:"bytes"`
					} `json:"client_to_upstream"`
				} `json:"directions"`
			}
			if err == nil {
				err = json.Unmarshal(b, &s)
			}
			if err != nil {
				t.Fatalf("stats: %v\n%s", err, b)
			}
			if !s.Partial || !strings.Contains(s.PartialReason, "interrupted by SIGINT") || !strings.Contains(s.PartialReason, "1 connection still open") {
				t.Errorf("partial %v, reason %q; want partial, naming SIGINT and the 1 connection cut", s.Partial, s.PartialReason)
			}
			if s.Connections.Accepted != 1 || s.Directions.ClientToUpstream.Bytes != 12 {
				t.Errorf("accepted %d, client→upstream %d bytes; want 1 and the 12 bytes of three pings", s.Connections.Accepted, s.Directions.ClientToUpstream.Bytes)
			}
		})
	}
}

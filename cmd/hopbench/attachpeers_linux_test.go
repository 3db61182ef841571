package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/porttest"
	"github.com/hoplat/hoplat/proxyconf"
	"github.com/hoplat/hoplat/sockets"
	"github.com/hoplat/hoplat/tracer/attach"
)

// The helpers of the tests that attach to real proxies under pingpong's
// load: each starts a process it owns until the test ends.

// requireAttach skips t where hopbench attach cannot run.
func requireAttach(t *testing.T, what string) {
	t.Helper()
	peer.Integration(t, what)
	peer.Root(t, "attach: needs root")
}

// start runs c until the test ends.
func start(t *testing.T, c hosts.Command) *hosts.Process {
	t.Helper()
	p, err := hosts.Start(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(); p.Wait() })
	return p
}

// startPongd runs pongd's echo on cpus, serving each of addrs (port 0 for
// a free one), and returns the addresses it listens on.
func startPongd(t *testing.T, cpus affinity.CPUSet, addrs ...string) []sockets.Addr {
	t.Helper()
	argv := []string{peer.Hoplat(t, "pongd")}
	for _, a := range addrs {
		argv = append(argv, "--listen", a)
	}
	p := start(t, hosts.Command{Name: "pongd", Argv: argv, CPUs: cpus})
	got, err := p.Listening(context.Background(), len(addrs), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// dialable is a as a client names it: the short form, no options.
func dialable(a sockets.Addr) sockets.Addr {
	a.Role, a.Opts = sockets.RoleAny, sockets.Options{}
	return a
}

// freeTCP is a loopback address nothing listens on now.
func freeTCP(t *testing.T) sockets.Addr {
	t.Helper()
	return sockets.Addr{Network: "tcp", Host: "127.0.0.1", Port: porttest.Closed(t)}
}

// startHAProxy runs HAProxy with config (proxyconf's, edited by the
// caller) on cpus and returns it once it accepts on listen.
func startHAProxy(t *testing.T, config string, listen sockets.Addr, cpus affinity.CPUSet) *hosts.Process {
	t.Helper()
	bin := peer.Require(t, "haproxy")
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	p := start(t, hosts.Command{Name: "haproxy", Argv: []string{bin, "-f", cfg, "-db"}, CPUs: cpus, Foreign: true})
	if err := p.Probe(context.Background(), listen, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	return p
}

// haproxyConfig is proxyconf's one route from listen to server, with
// nbthread n.
func haproxyConfig(listen, server sockets.Addr, nbthread int) string {
	c := proxyconf.HAProxy([]proxyconf.HAProxyRoute{{Name: "attach", Listen: listen, Connect: []sockets.Addr{server}}})
	return strings.Replace(c, "nbthread 1", fmt.Sprint("nbthread ", nbthread), 1)
}

// startLoad runs pingpong against target with conns connections, its
// threads on cpus, until the test ends (it is stopped then, its figures
// unread: attach's report is what the tests read).
func startLoad(t *testing.T, target sockets.Addr, conns int, cpus affinity.CPUSet) {
	t.Helper()
	start(t, hosts.Command{Name: "pingpong", Argv: []string{peer.Hoplat(t, "pingpong"), "--target", dialable(target).String(),
		"--threads", fmt.Sprint(conns), "--time", "10m", "--cpus", cpus.String()}, CPUs: cpus})
}

// lineWatch is an io.Writer that closes seen once a line holding want
// has been written to it: a process's readiness told by its log.
type lineWatch struct {
	want string
	seen chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once
}

func newLineWatch(want string) *lineWatch {
	return &lineWatch{want: want, seen: make(chan struct{})}
}

func (w *lineWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if bytes.Contains(w.buf.Bytes(), []byte(w.want)) {
		w.once.Do(func() { close(w.seen) })
	}
	if w.buf.Len() > 1<<16 {
		w.buf.Next(w.buf.Len() - len(w.want))
	}
	return len(b), nil
}

// attachJSON runs hopbench attach with args (--format json added) and
// returns its report; it fails t when attach does.
func attachJSON(t *testing.T, args ...string) *attach.Report {
	t.Helper()
	r, err := attachReport(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// attachReport is attachJSON for any goroutine: it returns what fails.
func attachReport(t *testing.T, args ...string) (*attach.Report, error) {
	cmd := exec.Command(peer.Hoplat(t, "hopbench"), append([]string{"attach", "--format", "json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("hopbench attach %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var r attach.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("hopbench attach: %v\n%s", err, stdout.String())
	}
	return &r, nil
}

// bothDirections fails t unless r has chunks both ways.
func bothDirections(t *testing.T, shape string, r *attach.Report) {
	t.Helper()
	for _, d := range r.Directions {
		t.Logf("%s: %s %d chunks, residence p50 %.2f µs p99 %.2f, split %+v", shape, d.Name, d.Chunks, d.ResidenceUs.P50, d.ResidenceUs.P99, d.SplitUs)
		if d.Chunks == 0 {
			t.Errorf("%s: %s has no chunks (note: %s)", shape, d.Name, r.Note)
		}
	}
	if len(r.Directions) != 2 {
		t.Errorf("%s: %d directions, want 2", shape, len(r.Directions))
	}
}

// bothOrCannot passes r where it has chunks both ways, or where it has
// none and its note gives the reason that starts with why; it logs which.
func bothOrCannot(t *testing.T, shape string, r *attach.Report, why string) {
	t.Helper()
	if len(r.Directions) == 2 && r.Directions[0].Chunks > 0 && r.Directions[1].Chunks > 0 {
		bothDirections(t, shape, r)
		return
	}
	t.Logf("%s: cannot: %s", shape, r.Note)
	if !strings.HasPrefix(r.Note, why) {
		t.Errorf("%s: no chunks both ways, and the note %q does not start %q", shape, r.Note, why)
	}
}

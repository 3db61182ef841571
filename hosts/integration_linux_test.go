//go:build linux

package hosts

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/internal/peer"
)

// These tests make real namespaces, veths and an OpenSSH server, so they
// need root; every address they use is inside the namespaces they make.

func upOrSkip(t *testing.T, ctx context.Context, hs []Host, o Options) *Testbed {
	t.Helper()
	peer.Root(t, "hosts: network namespaces need root")
	peer.Require(t, "ip")
	tb, err := Up(ctx, hs, o)
	if errors.Is(err, os.ErrPermission) {
		peer.Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tb.Close(); err != nil {
			t.Error(err)
		}
	})
	return tb
}

// ours lists the namespaces named after pid.
func ours(t *testing.T, pid int) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	var ns []string
	for _, l := range strings.Split(string(out), "\n") {
		if name, _, _ := strings.Cut(l, " "); strings.HasPrefix(name, hostNS(pid, "")) {
			ns = append(ns, name)
		}
	}
	return ns
}

// rootLinks counts interfaces in this machine's own namespace that a
// testbed could have made: none should ever appear there.
func rootLinks(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		t.Fatalf("ip link: %v", err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 1 && (strings.HasPrefix(f[1], ifName) || strings.HasPrefix(f[1], bridgeName)) {
			names = append(names, f[1])
		}
	}
	return names
}

type pingpongJSON struct {
	Results []struct {
		Transactions int `json:"transactions"`
		Errors       int `json:"errors"`
	} `json:"results"`
}

// pingpongOn runs 200 ms of round trips from host to target and returns
// how many completed.
func pingpongOn(t *testing.T, ctx context.Context, tb *Testbed, host, target string) int {
	t.Helper()
	out, err := tb.Run(ctx, host, peer.Hoplat(t, "pingpong"), "--target", target, "--time", "200ms", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var r pingpongJSON
	if err := json.Unmarshal(out, &r); err != nil || len(r.Results) != 1 {
		t.Fatalf("pingpong output %q: %v", out, err)
	}
	if r.Results[0].Errors != 0 || r.Results[0].Transactions == 0 {
		t.Fatalf("pingpong %s -> %s: %+v", host, target, r.Results[0])
	}
	return r.Results[0].Transactions
}

func counter(t *testing.T, ctx context.Context, tb *Testbed, host, file string) int {
	t.Helper()
	out, err := tb.Run(ctx, host, "cat", "/sys/class/net/"+ifName+"/statistics/"+file)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// startPongd starts pongd on host listening on addr:0 and returns it and
// its dialable address.
func startPongd(t *testing.T, ctx context.Context, tb *Testbed, host, bin, addr string) (*Process, string) {
	t.Helper()
	out := newLines()
	p, err := tb.Start(ctx, host, Command{Name: "pongd", Argv: []string{bin, "--listen", "tcp:" + addr + ":0"}, Stdout: out})
	if err != nil {
		t.Fatal(err)
	}
	target, err := out.await(ctx, "listening ", 10*time.Second)
	if err != nil {
		t.Fatalf("pongd on %s: %v (stderr: %s)", host, err, p.Stderr())
	}
	return p, target
}

func netnsOf(t *testing.T, pid int) string {
	t.Helper()
	l, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// (1) Two namespaces joined by a veth pair: pongd in one, pingpong in the
// other, round trips over the veth addresses.
func TestNetNSPingPong(t *testing.T) {
	ctx := context.Background()
	before := rootLinks(t)
	tb := upOrSkip(t, ctx, twoNamespaces(), Options{})
	if got := tb.Hosts(); len(got) != 2 || got[0].Address != "10.77.0.1" || got[1].Address != "10.77.0.2" || got[1].Kind != NetNS {
		t.Fatalf("hosts %+v", got)
	}
	if ns := ours(t, os.Getpid()); len(ns) != 2 {
		t.Fatalf("namespaces %v, want two", ns)
	}
	p, target := startPongd(t, ctx, tb, "db", peer.Hoplat(t, "pongd"), "10.77.0.2")
	if !strings.HasPrefix(target, "tcp:10.77.0.2:") {
		t.Fatalf("pongd listening on %s", target)
	}
	// ip netns exec execs in place: the PID is pongd's own, in db's
	// namespace, not this one's.
	if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.PID())); strings.TrimSpace(string(comm)) != "pongd" {
		t.Errorf("pid %d is %q, not pongd", p.PID(), comm)
	}
	if netnsOf(t, p.PID()) == netnsOf(t, os.Getpid()) {
		t.Errorf("pongd runs in this process's namespace")
	}
	rx := counter(t, ctx, tb, "db", "rx_packets")
	n := pingpongOn(t, ctx, tb, "app", target)
	// Every request crossed the veth into db: its receive counter grew
	// by at least one packet per round trip.
	if grew := counter(t, ctx, tb, "db", "rx_packets") - rx; grew < n {
		t.Errorf("db's %s received %d packets for %d round trips", ifName, grew, n)
	}
	if err := p.Stop(); err != nil {
		t.Error(err)
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	if ns := ours(t, os.Getpid()); len(ns) != 0 {
		t.Errorf("namespaces left: %v", ns)
	}
	if after := rootLinks(t); len(after) != len(before) {
		t.Errorf("links in the root namespace: before %v, after %v", before, after)
	}
}

// Three namespaces are joined by a bridge in a fourth.
func TestNetNSBridge(t *testing.T) {
	ctx := context.Background()
	hs := append(twoNamespaces(), Host{Name: "c", Kind: NetNS, Namespace: "c", Spec: "netns:c"})
	tb := upOrSkip(t, ctx, hs, Options{})
	if ns := ours(t, os.Getpid()); len(ns) != 4 {
		t.Fatalf("namespaces %v, want three and a bridge", ns)
	}
	_, target := startPongd(t, ctx, tb, "c", peer.Hoplat(t, "pongd"), "10.77.0.3")
	pingpongOn(t, ctx, tb, "app", target)
	pingpongOn(t, ctx, tb, "db", target)
}

func TestNetNSErrors(t *testing.T) {
	ctx := context.Background()
	tb := upOrSkip(t, ctx, twoNamespaces(), Options{})
	// A second testbed of this process with the same names fails at its
	// first step, naming it, and leaves the first one's alone.
	_, err := Up(ctx, twoNamespaces(), Options{})
	if err == nil || !strings.Contains(err.Error(), "netns app: add namespace "+hostNS(os.Getpid(), "app")) {
		t.Errorf("second Up: %v", err)
	}
	if ns := ours(t, os.Getpid()); len(ns) != 2 {
		t.Errorf("namespaces %v after a failed Up", ns)
	}
	if _, err := tb.Argv("nope", []string{"true"}); err == nil {
		t.Error("Argv on an unknown host")
	}
	// Without root, ip's refusal is named as such.
	cmd := exec.Command("ip", "netns", "add", hostNS(os.Getpid(), "nobody"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		exec.Command("ip", "netns", "del", hostNS(os.Getpid(), "nobody")).Run()
		t.Fatal("ip netns add as nobody succeeded")
	} else if e := ipError(stderr.String(), err); !errors.Is(e, os.ErrPermission) || !strings.Contains(e.Error(), "(need root)") {
		t.Errorf("as nobody: %v (stderr %q)", e, stderr.String())
	}
}

// (3) SIGTERM mid-run: the run closes its testbed and leaves nothing; a
// run killed outright leaves namespaces that the next Up removes.
func TestSignalLeavesNothing(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			peer.Root(t, "hosts: network namespaces need root")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"="+peer.Hoplat(t, "pongd"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			pongd, err := readyPID(sc)
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%v (stderr: %s)", err, stderr.String())
			}
			helper := cmd.Process.Pid
			if ns := ours(t, helper); len(ns) != 2 {
				t.Errorf("helper's namespaces %v", ns)
			}
			cmd.Process.Signal(sig)
			for sc.Scan() {
			}
			werr := cmd.Wait()
			if sig == syscall.SIGTERM {
				if werr != nil {
					t.Fatalf("helper: %v (stderr: %s)", werr, stderr.String())
				}
				if ns := ours(t, helper); len(ns) != 0 {
					t.Errorf("after SIGTERM: namespaces %v", ns)
				}
			} else {
				if ns := ours(t, helper); len(ns) != 2 {
					t.Fatalf("after SIGKILL: namespaces %v, want the two left behind", ns)
				}
				var steps []Step
				upOrSkip(t, context.Background(), []Host{{Name: "x", Kind: NetNS, Namespace: "x"}},
					Options{Steps: func(s Step) { steps = append(steps, s) }})
				if ns := ours(t, helper); len(ns) != 0 {
					t.Errorf("the next Up left the killed run's %v", ns)
				}
				if !slices.Contains(steps, Step{Kind: StaleNetNSRemoved, Namespace: hostNS(helper, "db")}) {
					t.Errorf("steps %+v", steps)
				}
			}
			// pongd dies with its namespace, or with its parent.
			waitGone(t, pongd)
		})
	}
}

// waitGone waits until pid no longer exists: the kernel reaps it after
// its parent (gone, or us) has; there is no event for another process's
// child exiting, so it polls a bounded time.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !pidAlive(pid) { // gone, or a zombie: exited
			return
		}
	}
	t.Errorf("pid %d still runs", pid)
}

// (3) Cancelling a run mid-way, as Ctrl-C does through
// signal.NotifyContext, leaves no namespace, veth, remote process, ssh
// master or temp dir behind.
func TestCancelLeavesNothing(t *testing.T) {
	peer.Root(t, "hosts: network namespaces need root")
	before := rootLinks(t)
	dir, opts := sshKeys(t, "10.77.0.2")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pids []int
	var dirs []string
	// run is how the driver uses a testbed: Up, defer Close, start the
	// components, run until done or cancelled.
	run := func() (err error) {
		o := Options{SSHOptions: opts, Binary: func(name, _, _ string) (string, error) { return peer.Hoplat(t, name), nil }}
		tb, err := Up(ctx, sshHosts()[:3], o)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := tb.Close(); err == nil {
				err = cerr
			}
		}()
		d := sshd(t, ctx, tb, "db", "10.77.0.2", dir)
		bin, err := tb.Binary(ctx, "remote", "pongd")
		if err != nil {
			return err
		}
		p, target := startPongd(t, ctx, tb, "remote", bin, "10.77.0.2")
		c, err := tb.Start(ctx, "app", Command{Argv: []string{peer.Hoplat(t, "pingpong"), "--target", target, "--time", "1h"}})
		if err != nil {
			return err
		}
		conn := tb.hosts["remote"].conn
		pids = []int{d.PID(), p.PID(), c.PID(), conn.master}
		dirs = []string{tb.tmp, conn.dir}
		for _, pid := range pids {
			if pid <= 0 || !pidAlive(pid) {
				t.Fatalf("pids %v: %d not running before the cancel", pids, pid)
			}
		}
		cancel() // Ctrl-C
		<-ctx.Done()
		return nil
	}
	if os.Geteuid() == 0 {
		peer.Require(t, "ip")
	}
	if err := run(); err != nil {
		t.Fatal(err)
	}
	if ns := ours(t, os.Getpid()); len(ns) != 0 {
		t.Errorf("namespaces left: %v", ns)
	}
	if after := rootLinks(t); len(after) != len(before) {
		t.Errorf("links in the root namespace: before %v, after %v", before, after)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", d, err)
		}
	}
}

// MXS-1515's example file brought up as hopbench will: the server where
// the file puts it, a relay beside the client with the client's leg on a
// UNIX socket (docs/hopbench.md, MXS-1515: `socat UNIX-LISTEN:… TCP4:…`), the relay's
// upstream crossing the veth, and processes started from Argv by the
// caller itself, as the driver starts its own.
func TestTopologyFileUp(t *testing.T) {
	peer.Root(t, "hosts: network namespaces need root")
	ctx := context.Background()
	tp, err := ReadTopology("testdata/mxs-1515.conf", anyKey)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := tp.Up(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := tb.Close(); err != nil {
			t.Error(err)
		}
	}()
	server, client := tp.Place[Server].Host, tp.Place[Client].Host
	addr, err := tb.Address(server)
	if err != nil || addr != "10.77.0.2" {
		t.Fatalf("server on %s at %q %v", server, addr, err)
	}
	_, target := startPongd(t, ctx, tb, server, peer.Hoplat(t, "pongd"), addr)

	sock := filepath.Join(t.TempDir(), "mysql.sock")
	argv, err := tb.Argv(tp.Place[Relay].Host, []string{peer.Hoplat(t, "hoprelay"), "--engine", "epoll", "unix:" + sock, target})
	if err != nil {
		t.Fatal(err)
	}
	relay := exec.Command(argv[0], argv[1:]...)
	affinity.NewGroup(relay)
	out, err := relay.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	relay.Stderr = &stderr
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		TerminateGroup(relay.Process.Pid)
		relay.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening unix:") {
		t.Fatalf("hoprelay: %q %v (stderr: %s)", line, err, stderr.String())
	}
	// A UNIX socket's path is in the file system, not the network
	// namespace (unix(7)): the client dials it from the relay's host.
	rx := counter(t, ctx, tb, server, "rx_packets")
	n := pingpongOn(t, ctx, tb, client, "unix:"+sock)
	if grew := counter(t, ctx, tb, server, "rx_packets") - rx; grew < n {
		t.Errorf("%d round trips through the relay, %d packets into %s", n, grew, server)
	}
}

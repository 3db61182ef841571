package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/sockets"
	"github.com/hoplat/hoplat/tracer/attach"
)

// The proxy shapes hopbench attach is held to: each under pingpong's load
// gives both directions with chunks. attach follows a process by --pid
// (its workers found as its children), never by name: another test's
// proxy of the same name may run beside.

// shapeArgs trace pid for a few seconds, every chunk.
func shapeArgs(pid int) []string {
	return []string{"--pid", fmt.Sprint(pid), "--time", "3s", "--duty", "100", "--window", "200ms"}
}

func shapeAttach(t *testing.T, pid int) *attach.Report {
	t.Helper()
	return attachJSON(t, shapeArgs(pid)...)
}

var cpus01 = affinity.NewCPUSet(0, 1)

// TestAttachShapeHAProxyThreads: HAProxy nbthread 2 on two CPUs, four
// connections spread over its threads.
func TestAttachShapeHAProxyThreads(t *testing.T) {
	requireAttach(t, "hopbench attach on HAProxy nbthread 2")
	server := startPongd(t, cpus01, "tcp:127.0.0.1:0")[0]
	listen := freeTCP(t)
	hp := startHAProxy(t, haproxyConfig(listen, server, 2), listen, cpus01)
	startLoad(t, listen, 4, cpus01)
	r := shapeAttach(t, hp.PID())
	bothDirections(t, "haproxy nbthread 2", r)
	if r.Target.Threads < 2 {
		t.Errorf("haproxy nbthread 2: %d threads moved bytes, want 2", r.Target.Threads)
	}
}

// TestAttachShapeNginxWorkers: nginx's stream module with 2 worker
// processes, found as the master's children.
func TestAttachShapeNginxWorkers(t *testing.T) {
	requireAttach(t, "hopbench attach on nginx with 2 workers")
	nginx := peer.Require(t, "nginx")
	module := "/usr/lib/nginx/modules/ngx_stream_module.so"
	if _, err := os.Stat(module); err != nil {
		peer.Unavailable(t, "nginx's stream module: "+err.Error())
	}
	server := startPongd(t, cpus01, "tcp:127.0.0.1:0")[0]
	listen := freeTCP(t)
	dir := t.TempDir()
	conf := fmt.Sprintf("load_module %s;\ndaemon off;\nmaster_process on;\nworker_processes 2;\npid %s/nginx.pid;\n"+
		"error_log %s/error.log;\nevents { worker_connections 256; }\n"+
		"stream { server { listen %s; proxy_pass %s; } }\n", module, dir, dir, listen.NetAddr(), server.NetAddr())
	cfg := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	p := start(t, hosts.Command{Name: "nginx", Argv: []string{nginx, "-c", cfg, "-p", dir, "-e", dir + "/error.log"}, CPUs: cpus01, Foreign: true})
	if err := p.Probe(context.Background(), listen, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	startLoad(t, listen, 4, cpus01)
	r := shapeAttach(t, p.PID())
	bothDirections(t, "nginx 2 workers", r)
	if len(r.Target.PIDs) < 3 {
		t.Errorf("nginx: pids %v, want the master and its 2 workers", r.Target.PIDs)
	}
}

// TestAttachShape64Connections: 64 client connections through HAProxy;
// chunks are matched per connection pair, so every connection is seen
// and the two directions count the same chunks.
func TestAttachShape64Connections(t *testing.T) {
	requireAttach(t, "hopbench attach on HAProxy with 64 connections")
	cpu0 := affinity.NewCPUSet(0)
	server := startPongd(t, cpu0, "tcp:127.0.0.1:0")[0]
	listen := freeTCP(t)
	hp := startHAProxy(t, haproxyConfig(listen, server, 1), listen, cpu0)
	startLoad(t, listen, 64, affinity.NewCPUSet(1))
	r := shapeAttach(t, hp.PID())
	bothDirections(t, "64 connections", r)
	if r.Connections < 64 {
		t.Errorf("64 connections: attach saw %d", r.Connections)
	}
	// Each request is one chunk up and its reply one down: chunks
	// matched across connections would break the pairs' balance. What
	// the timing leaves unpaired is the mechanism's, on any machine: a
	// connection holds one request at a time, so each window's edges cut
	// at most one pair per connection (a reply seen without its request
	// at the start, or a request without its reply at the end), and a
	// lost record loses at most one chunk.
	up, down := r.Directions[0].Chunks, r.Directions[1].Chunks
	windows := int64(len(r.Windows)) + int64(r.WindowsDropped)
	tol := windows*int64(r.Connections) + int64(r.Tracer.Lost)
	t.Logf("64 connections: %d chunks up, %d down, in %d windows (%d records lost): at most %d apart", up, down, windows,
		r.Tracer.Lost, tol)
	if diff := up - down; diff > tol || diff < -tol {
		t.Errorf("64 connections: %d chunks up, %d down: more than %d apart", up, down, tol)
	}
}

// TestAttachShapeUnixListener: HAProxy listening on a UNIX socket, its
// server over TCP. attach matches bytes by TCP sequence numbers: the
// report says it cannot, in its note.
func TestAttachShapeUnixListener(t *testing.T) {
	requireAttach(t, "hopbench attach on HAProxy with a UNIX listener")
	cpu0 := affinity.NewCPUSet(0)
	server := startPongd(t, cpu0, "tcp:127.0.0.1:0")[0]
	listen := sockets.Addr{Network: "unix", Path: filepath.Join(t.TempDir(), "haproxy.sock")}
	hp := startHAProxy(t, haproxyConfig(listen, server, 1), listen, cpu0)
	startLoad(t, listen, 1, cpu0)
	r := shapeAttach(t, hp.PID())
	bothOrCannot(t, "unix listener", r, "no chunk: the proxy listens on a UNIX socket")
}

// TestAttachShapeSplice: hoprelay's splice engine, whose bytes never
// reach its user space: its receives are tcp_splice_read's, which no hook
// sees, and the report says it cannot, in its note.
func TestAttachShapeSplice(t *testing.T) {
	requireAttach(t, "hopbench attach on hoprelay --engine splice")
	cpu0 := affinity.NewCPUSet(0)
	server := startPongd(t, cpu0, "tcp:127.0.0.1:0")[0]
	p, listen := startHoprelay(t, "splice", server, cpu0)
	startLoad(t, listen, 1, cpu0)
	r := shapeAttach(t, p.PID())
	bothOrCannot(t, "hoprelay splice", r, "no chunk: the proxy sent bytes but none of its receives was seen")
}

// startHoprelay runs hoprelay's engine from a free port to server.
func startHoprelay(t *testing.T, engine string, server sockets.Addr, cpus affinity.CPUSet) (*hosts.Process, sockets.Addr) {
	t.Helper()
	p := start(t, hosts.Command{Name: "hoprelay " + engine, Argv: []string{peer.Hoplat(t, "hoprelay"), "--engine", engine,
		"--cpus", cpus.String(), "tcp:127.0.0.1:0", dialable(server).String()}, CPUs: cpus})
	addrs, err := p.Listening(context.Background(), 1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return p, addrs[0]
}

// TestAttachShapeChain: two proxies in a chain, HAProxy in front of
// hoprelay's epoll engine, each traced by an attach of its own at once:
// each sees its own hop, both ways.
func TestAttachShapeChain(t *testing.T) {
	requireAttach(t, "hopbench attach on a chain of two proxies")
	cpu0 := affinity.NewCPUSet(0)
	server := startPongd(t, cpu0, "tcp:127.0.0.1:0")[0]
	relay, second := startHoprelay(t, "epoll", server, cpu0)
	listen := freeTCP(t)
	hp := startHAProxy(t, haproxyConfig(listen, second, 1), listen, cpu0)
	startLoad(t, listen, 1, cpu0)
	var wg sync.WaitGroup
	reports := make([]*attach.Report, 2)
	errs := make([]error, 2)
	for i, pid := range []int{hp.PID(), relay.PID()} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reports[i], errs[i] = attachReport(t, shapeArgs(pid)...)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range []string{"chain: haproxy", "chain: hoprelay epoll"} {
		bothDirections(t, name, reports[i])
	}
	if !strings.Contains(reports[0].Target.Comm, "haproxy") {
		t.Errorf("chain: the first attach traced %q", reports[0].Target.Comm)
	}
}

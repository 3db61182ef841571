package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/sockets"
)

// niceOf reads the nice value (field 19 of stat) of thread tid of process pid (proc(5),
// /proc/PID/task/TID/stat): nice is per thread on Linux.
func niceOf(t *testing.T, pid int, tid string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + tid + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, err := strconv.Atoi(fields[16]) // field 19, counting from state (field 3)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A path whose program is missing is skipped with the reason, the others
// still start; the responder gets the niceness asked for; Stop leaves
// nothing behind.
func TestBuildSkipsMissingAndSetsNice(t *testing.T) {
	bin := fakeBin(t)
	locate := fakeLocator(bin, false)
	spec := TopologySpec{
		TempRoot:  t.TempDir(),
		Responder: Responder{Proto: ProtoEcho},
		Nice:      5,
		Paths: []hop.Path{
			hop.DirectPath(hop.TCP), hop.DirectPath(hop.UNIX),
			{Relay: hop.Epoll, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1},
			{Relay: hop.Socat, Client: hop.TCP, Upstream: hop.TCP, Hops: 1},
		},
		Locate: func(name string) (string, error) {
			if name == "socat" {
				return "", errors.New("driver: socat not found next to hopbench or on PATH (install it with `make deps`)")
			}
			return locate(name)
		},
	}
	topo, err := Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Entries) != 3 {
		t.Errorf("entries %v", topo.Entries)
	}
	if a := topo.Entries[spec.Paths[2]]; !a.IsUnix() || !strings.HasPrefix(a.Path, topo.Dir) {
		t.Errorf("epoll unix->tcp entry %v", a)
	}
	if len(topo.Skipped) != 1 || topo.Skipped[0].Path != "socat tcp->tcp" || !strings.Contains(topo.Skipped[0].Reason, "make deps") {
		t.Errorf("skipped %+v", topo.Skipped)
	}
	// Round trips on several connections at once make pongd's runtime
	// start threads after its start: they must have the niceness too, as
	// they do when it is set on the thread that forks pongd.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c, err := sockets.Dial(context.Background(), topo.Entries[spec.Paths[0]])
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			buf := make([]byte, 64)
			for range 50 {
				if _, err := c.Write(buf); err != nil {
					t.Error(err)
					return
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	pongd := topo.Processes()[0].PID()
	threads, err := os.ReadDir("/proc/" + strconv.Itoa(pongd) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		if got := niceOf(t, pongd, th.Name()); got != 5 {
			t.Errorf("pongd thread %s of %d: nice %d, want 5", th.Name(), len(threads), got)
		}
	}
	dir := topo.Dir
	if err := topo.Stop(); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temp dir %s survives Stop: %v", dir, err)
	}
}

// A real backend needs nothing started; a path its sockets cannot serve is
// skipped.
// TestRespawn: Respawn replaces every relay process, the backend left
// running; the entries (a new port, the same UNIX path) relay again and
// the stats files keep their names.
func TestRespawn(t *testing.T) {
	spec := TopologySpec{
		TempRoot:  t.TempDir(),
		Responder: Responder{Proto: ProtoEcho},
		Stats:     true,
		Paths: []hop.Path{
			hop.DirectPath(hop.TCP),
			{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1},
			{Relay: hop.Epoll, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1},
		},
		Locate: fakeLocator(fakeBin(t), false),
	}
	topo, err := Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Stop()
	pids := func() (server int, relays []int) {
		for _, p := range spec.Paths[1:] {
			for _, proc := range topo.relayProcs[p] {
				relays = append(relays, proc.PID())
			}
		}
		return topo.server.PID(), relays
	}
	server, before := pids()
	stats := fmt.Sprint(topo.Stats)
	if err := topo.Respawn(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	server2, after := pids()
	if server2 != server || len(after) != 2 || len(topo.Processes()) != 3 {
		t.Errorf("server %d then %d, relays %v, %d processes; want the server kept, two relays, three processes", server, server2, after, len(topo.Processes()))
	}
	for _, old := range before {
		if slices.Contains(after, old) || syscall.Kill(old, 0) == nil {
			t.Errorf("relay %d still there after Respawn (relays now %v)", old, after)
		}
	}
	if got := fmt.Sprint(topo.Stats); got != stats {
		t.Errorf("stats files %s, then %s", stats, got)
	}
	for _, p := range spec.Paths[1:] {
		c, err := sockets.Dial(context.Background(), topo.Entries[p])
		if err != nil {
			t.Fatalf("%s after Respawn: %v", p.Name(), err)
		}
		buf := []byte("respawned")
		if _, err := c.Write(buf); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "respawned" {
			t.Errorf("%s after Respawn: %q, %v", p.Name(), buf, err)
		}
		c.Close()
	}
}

func TestBuildRealBackend(t *testing.T) {
	b, err := ParseBackend("mysql://u:p@127.0.0.1:3306/d")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := Build(context.Background(), TopologySpec{
		TempRoot: t.TempDir(),
		Backend:  b,
		Paths:    []hop.Path{hop.DirectPath(hop.TCP), hop.DirectPath(hop.UNIX)},
		Locate:   func(string) (string, error) { return "", errors.New("nothing to start") },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Stop()
	if len(topo.Processes()) != 0 || topo.Entries[hop.DirectPath(hop.TCP)].Port != 3306 {
		t.Errorf("entries %v, processes %d", topo.Entries, len(topo.Processes()))
	}
	if len(topo.Skipped) != 1 || !strings.Contains(topo.Skipped[0].Reason, "no unix socket") {
		t.Errorf("skipped %+v", topo.Skipped)
	}
}

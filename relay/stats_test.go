package relay_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
	"github.com/hoplat/hoplat/stats"
)

// TestSnapshotHistogramDecodes: the residence histogram of a --stats file is
// stats.Histogram's encoding, which the one decoder reads back to the
// counts and percentiles the snapshot states beside it.
func TestSnapshotHistogramDecodes(t *testing.T) {
	up := startUpstream(t, "tcp", echo)
	rr := startRelay(t, relay.Config{Engine: relay.EngineEpoll, Stats: true}, "tcp", up.addr)
	c := dial(t, rr.Addr())
	msg := []byte("residence")
	buf := make([]byte, len(msg))
	for range 50 {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	// The client can hold the last reply before the loop has recorded its
	// residence (the sample follows the write); once the loop has seen the
	// client's FIN and closed the connection, every sample is in.
	deadline := time.Now().Add(10 * time.Second)
	for rr.Stats().Connections.Active != 0 {
		if time.Now().After(deadline) {
			t.Fatal("relay still holds the connection 10s after the client closed it")
		}
		runtime.Gosched()
	}
	var out bytes.Buffer
	if err := rr.Stats().WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var s relay.Snapshot
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	res := s.Residence
	if res.Count < 100 { // a chunk each way per round trip
		t.Fatalf("residence count %d, want at least 100", res.Count)
	}
	h, err := stats.DecodeHistogram(res.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if h.Count() != res.Count || h.Quantile(50) != res.P50Ns || h.Max() != res.MaxNs || h.Min() != res.MinNs {
		t.Errorf("decoded count %d p50 %d min %d max %d; snapshot says %+v", h.Count(), h.Quantile(50), h.Min(), h.Max(), res)
	}
}

// TestWakeReported: the loops' wait strategy is in the snapshot as chosen,
// an adaptive loop counts its spins, a sleeping one never spins, and a
// wake option beside spin or busy-poll is refused.
func TestWakeReported(t *testing.T) {
	for _, w := range []relay.Wake{relay.WakeAdaptive, relay.WakeSleep} {
		up := startUpstream(t, "tcp", echo)
		rr := startRelay(t, relay.Config{Engine: relay.EngineEpoll, Wake: w}, "tcp", up.addr)
		c := dial(t, rr.Addr())
		buf := make([]byte, 8)
		for range 200 {
			if _, err := c.Write(buf); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
		s := rr.Stats()
		if s.Config.Wake != string(w) || s.Config.WakeRule == relay.WakeRuleNone {
			t.Errorf("%s: snapshot wake %q (rule %d)", w, s.Config.Wake, s.Config.WakeRule)
		}
		if len(s.Loops) != 1 {
			t.Fatalf("%s: %d loops in the snapshot", w, len(s.Loops))
		}
		spins := s.Loops[0].SpinHits + s.Loops[0].SpinMisses
		if (w == relay.WakeAdaptive) != (spins > 0) {
			t.Errorf("%s: %d spins (%+v)", w, spins, s.Loops[0])
		}
		if strategy, _, _ := rr.Wake(); strategy != string(w) {
			t.Errorf("%s: Relay.Wake says %q", w, strategy)
		}
	}
	for _, cfg := range []relay.Config{
		{Engine: relay.EngineEpoll, Wake: "often"},
		{Engine: relay.EngineEpoll, Wake: relay.WakeSleep, Spin: true},
		{Engine: relay.EngineGoroutine, Wake: relay.WakeAdaptive},
	} {
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "wake") {
			t.Errorf("%+v: Validate = %v, want an error naming wake", cfg, err)
		}
	}
}

// TestSnapshotCut: a relay closed with a connection still live says so
// in its last snapshot, partial, counting what it relayed up to then.
func TestSnapshotCut(t *testing.T) {
	up := startUpstream(t, "tcp", echo)
	r, err := relay.New(sockets.Addr{Network: "tcp4", Role: sockets.RoleListen}, up.addr, relay.Config{Engine: relay.EngineGoroutine})
	if err != nil {
		t.Fatal(err)
	}
	rr := serveRelay(t, r)
	c := dial(t, rr.Addr())
	msg := []byte("cut")
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, msg); err != nil {
		t.Fatal(err)
	}
	rr.stop(t)
	s := rr.Stats()
	if !s.Partial || s.Cut != 1 || s.WhileServing || s.Directions.ClientToUpstream.Bytes != 3 {
		t.Errorf("after Close with a live connection: partial %v, cut %d, while serving %v, %d bytes up; want partial, 1 cut, 3 bytes",
			s.Partial, s.Cut, s.WhileServing, s.Directions.ClientToUpstream.Bytes)
	}
}

// TestSnapshotListenBound: a relay asked for port 0 on no host reports the
// address it bound, the kernel's port and the default host, and its
// snapshots are partial while it serves and whole once Serve returned.
func TestSnapshotListenBound(t *testing.T) {
	for _, engine := range []relay.Engine{relay.EngineGoroutine, relay.EngineEpoll} {
		t.Run(string(engine), func(t *testing.T) {
			if engine == relay.EngineEpoll && runtime.GOOS != "linux" {
				t.Skip("epoll: linux only")
			}
			up := startUpstream(t, "tcp", echo)
			r, err := relay.New(sockets.Addr{Network: "tcp4", Role: sockets.RoleListen}, up.addr, relay.Config{Engine: engine})
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("tcp4-listen:%d,bind=127.0.0.1", r.Addr().Port)
			if got := r.Stats().Config.Listen; got != want || r.Addr().Port == 0 {
				t.Errorf("listen %q, want %q: the port bound", got, want)
			}
			rr := serveRelay(t, r)
			// A round trip through the relay: Serve is under way.
			c := dial(t, rr.Addr())
			msg := []byte("bound")
			if _, err := c.Write(msg); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(c, msg); err != nil {
				t.Fatal(err)
			}
			if s := rr.Stats(); !s.Partial || !s.WhileServing || s.Config.Listen != want {
				t.Errorf("while serving: partial %v (while serving %v), listen %q; want partial while serving, %q", s.Partial, s.WhileServing, s.Config.Listen, want)
			}
			c.Close()
			rr.end(t)
			s := rr.Stats()
			var out bytes.Buffer
			if err := s.WriteJSON(&out); err != nil {
				t.Fatal(err)
			}
			if s.Partial || strings.Contains(out.String(), "partial") {
				t.Errorf("after Serve returned: partial %v, want a whole snapshot without the fields:\n%s", s.Partial, out.String())
			}
		})
	}
}

// TestSliceReported: a loop's thread runs with the slice asked for (the
// kernel's own /proc account of the process's threads shows it), the
// snapshot says what was granted, and a negative slice leaves the kernel's
// default.
func TestSliceReported(t *testing.T) {
	for _, tc := range []struct {
		slice time.Duration
		want  string
	}{{0, relay.DefaultSlice.String()}, {7 * time.Millisecond, "7ms"}, {-1, "kernel default"}} {
		up := startUpstream(t, "tcp", echo)
		rr := startRelay(t, relay.Config{Engine: relay.EngineEpoll, Slice: tc.slice}, "tcp", up.addr)
		c := dial(t, rr.Addr())
		buf := make([]byte, 8)
		if _, err := c.Write(buf); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		got := rr.Stats().Config.Slice
		if strings.Contains(got, "keeps no custom slice") {
			t.Skipf("%s", got)
		}
		if got != tc.want {
			t.Errorf("slice %v: snapshot says %q, want %q", tc.slice, got, tc.want)
		}
		if tc.slice > 0 && !threadWithSlice(t, tc.slice) {
			t.Errorf("slice %v: no thread of this process has se.slice %d in /proc", tc.slice, tc.slice.Nanoseconds())
		}
		c.Close()
	}
}

// threadWithSlice reports whether a thread of this process runs with slice
// d, as /proc/self/task/*/sched shows it (the kernel prints se.slice there
// when built with scheduler debugging; without it the test skips).
func threadWithSlice(t *testing.T, d time.Duration) bool {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/sched")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			name, v, ok := strings.Cut(line, ":")
			if !ok || strings.TrimSpace(name) != "se.slice" {
				continue
			}
			seen = true
			if strings.TrimSpace(v) == strconv.FormatInt(d.Nanoseconds(), 10) {
				return true
			}
		}
	}
	if !seen {
		t.Skip("/proc/self/task/*/sched shows no se.slice on this kernel")
	}
	return false
}

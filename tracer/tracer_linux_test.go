package tracer

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
)

// openOrSkip opens a tracer, or skips (fails under
// HOPLAT_REQUIRE_INTEGRATION) where this machine cannot run one.
func openOrSkip(t testing.TB, cfg Config) *Tracer {
	t.Helper()
	peer.Integration(t, "tracer with BPF")
	peer.Root(t, "tracer: needs root")
	tr, err := Open(cfg)
	if errors.Is(err, errors.ErrUnsupported) {
		peer.Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func TestCalibrate(t *testing.T) {
	tr := openOrSkip(t, Config{})
	d, err := tr.Calibrate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("per event %v (wake-up tracepoint %s)", d, tr.objs.wakeup)
	// A record costs a few hundred ns (a helper call or two, the clock,
	// the ring); a figure far outside is a broken measurement. 20 µs is
	// two orders of magnitude above that on any machine: it catches a
	// calibration that timed a wake-up or a preemption, not a record.
	if d <= 0 || d > 20*time.Microsecond {
		t.Errorf("per-event cost %v", d)
	}
	if tr.PerEvent() != d {
		t.Errorf("PerEvent %v after Calibrate returned %v", tr.PerEvent(), d)
	}
}

// TestOpenUnprivileged runs this test binary as nobody: Open must say the
// tracer needs privilege, as ErrNoCapability, not cilium's MEMLOCK hint.
func TestOpenUnprivileged(t *testing.T) {
	if os.Getenv("HOPLAT_TRACER_UNPRIVILEGED") == "1" {
		_, err := Open(Config{})
		if !errors.Is(err, ErrNoCapability) || !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("Open as uid %d: %v, want ErrNoCapability", os.Geteuid(), err)
		}
		if !strings.HasPrefix(err.Error(), "tracer: needs root") || strings.Contains(err.Error(), "MEMLOCK") {
			t.Fatalf("message %q", err)
		}
		t.Log(err)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the test as another user")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// nobody cannot reach go test's build directory (0700): it runs a copy.
	dir := peer.ForEveryone(t, exe)
	bin := filepath.Join(dir, filepath.Base(exe))
	cmd := exec.Command(bin, "-test.run=^TestOpenUnprivileged$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOPLAT_TRACER_UNPRIVILEGED=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody: %s", bytes.TrimSpace(out))
}

// TestCollectorAllocs: draining and decoding the ring allocates nothing
// per record (the events slice grows by doubling, and not at all here).
func TestCollectorAllocs(t *testing.T) {
	tr := openOrSkip(t, Config{})
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := syscall.Gettid()
	if err := tr.FollowThread(tid, "test"); err != nil {
		t.Fatal(err)
	}
	defer tr.unfollowThread(tid)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	for range 20000 {
		syscall.Getppid()
	}
	trace, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	n := len(trace.Events)
	if n < 40000 {
		t.Fatalf("%d records for 20000 followed system calls", n)
	}
	if allocs := after.Mallocs - before.Mallocs; allocs > uint64(n/100) {
		t.Errorf("%d allocations for %d records", allocs, n)
	}
	t.Logf("%d records, %d allocations", n, after.Mallocs-before.Mallocs)
}

// TestBufferFullCountsLost fills every CPU's slots: the records past them
// are counted as lost, the kept ones are of the window, and the calls
// kept and the records lost add up to the calls the thread made.
func TestBufferFullCountsLost(t *testing.T) {
	tr := openOrSkip(t, Config{BufferBytes: 1})
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := syscall.Gettid()
	if err := tr.FollowThread(tid, "test"); err != nil {
		t.Fatal(err)
	}
	defer tr.unfollowThread(tid)
	capacity := tr.objs.perCPU * int(tr.objs.next.MaxEntries())
	calls := 2 * capacity // a record a call: twice what the slots hold
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	for range calls {
		syscall.Getppid()
	}
	trace, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	exits := 0
	for _, e := range trace.Events {
		if e.Time < trace.Start || e.Time > trace.End {
			t.Fatalf("%v record at %d outside the window [%d, %d]", e.Kind, e.Time, trace.Start, trace.End)
		}
		if int(e.Tid) == tid && e.Kind == KindSysExit {
			exits++
		}
	}
	// A whole call is one record and two events.
	if len(trace.Events) > 2*capacity {
		t.Errorf("%d events kept, the slots hold %d records", len(trace.Events), capacity)
	}
	if trace.Lost == 0 {
		t.Fatalf("no record lost: %d events kept for %d calls into %d slots", len(trace.Events), calls, capacity)
	}
	if got := uint64(exits) + trace.Lost; got < uint64(calls) {
		t.Errorf("%d of the thread's calls kept + %d records lost < the %d calls it made", exits, trace.Lost, calls)
	}
	t.Logf("%d slots, %d events kept (%d of the thread's calls), %d records lost", capacity, len(trace.Events), exits, trace.Lost)
}

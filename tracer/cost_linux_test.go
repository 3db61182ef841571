package tracer

import (
	"runtime"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/stats"
)

// BenchmarkSystemCallCost prices the tracer's hooks on the cheapest system
// call, getppid, in interleaved rounds (one per b.N), each figure in ns
// per call added to untraced_ns:
//
//   - dispatch_ns: programs on sys_enter and sys_exit that return at once,
//     the kernel's dispatch alone;
//   - clock_ns: what the two clock reads of a recorded call add to that
//     (programs that only call bpf_ktime_get_ns);
//   - hooks_ns: the tracer, the thread not followed (what every task on
//     the machine pays on every call while a window is open);
//   - followed_ns: the tracer, the thread followed (a record a call).
//
// Each round's figure is the fastest of several batches, and each figure
// the median over rounds.
func BenchmarkSystemCallCost(b *testing.B) {
	tr := openOrSkip(b, Config{})
	sys := []string{"sys_enter", "sys_exit"}
	empty, clock := loadHooks(b, sys, returnAtOnce), loadHooks(b, sys, clockOnly)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := syscall.Gettid()
	var plain, dispatched, clocked, hooked, followed []float64
	window := func(follow bool, into *[]float64) {
		if follow {
			if err := tr.FollowThread(tid, "bench"); err != nil {
				b.Fatal(err)
			}
			defer tr.unfollowThread(tid)
		}
		if err := tr.Start(); err != nil {
			b.Fatal(err)
		}
		*into = append(*into, perCall())
		if _, err := tr.Stop(); err != nil {
			b.Fatal(err)
		}
	}
	with := func(h *hooks, into *[]float64) {
		h.attach(b)
		*into = append(*into, perCall())
		h.detach()
	}
	for range b.N {
		plain = append(plain, perCall())
		with(empty, &dispatched)
		with(clock, &clocked)
		window(false, &hooked)
		window(true, &followed)
	}
	p, d := stats.Median(plain), stats.Median(dispatched)
	b.ReportMetric(p, "untraced_ns")
	b.ReportMetric(d-p, "dispatch_ns")
	b.ReportMetric(stats.Median(clocked)-d, "clock_ns")
	b.ReportMetric(stats.Median(hooked)-p, "hooks_ns")
	b.ReportMetric(stats.Median(followed)-p, "followed_ns")
	b.ReportMetric(0, "ns/op")
}

// perCall is the fastest of 10 batches of 5,000 getppid calls, in ns per
// call.
func perCall() float64 {
	const calls = 5000
	return float64(fastestGetppid(10, calls).Nanoseconds()) / calls
}

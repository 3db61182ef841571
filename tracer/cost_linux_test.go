package tracer

import (
	"runtime"
	"syscall"
	"testing"
)

// BenchmarkSystemCallCost prices the tracer's hooks on the cheapest system
// call, getppid, in interleaved rounds (one per b.N): untraced, traced
// with the thread not followed (what every task on the machine pays on
// every call while a window is open), and traced and followed (a record a
// call). Each figure is the median over rounds of the fastest of several
// batches, in ns per call; hooks_ns and followed_ns are what tracing adds
// to untraced_ns.
func BenchmarkSystemCallCost(b *testing.B) {
	tr := openOrSkip(b, Config{})
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := syscall.Gettid()
	var plain, hooked, followed []float64
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
	for range b.N {
		plain = append(plain, perCall())
		window(false, &hooked)
		window(true, &followed)
	}
	p, h, f := median(plain), median(hooked), median(followed)
	b.ReportMetric(p, "untraced_ns")
	b.ReportMetric(h-p, "hooks_ns")
	b.ReportMetric(f-p, "followed_ns")
	b.ReportMetric(0, "ns/op")
}

// perCall is the fastest of 10 batches of 5,000 getppid calls, in ns per
// call.
func perCall() float64 {
	const calls = 5000
	return float64(fastestGetppid(10, calls).Nanoseconds()) / calls
}

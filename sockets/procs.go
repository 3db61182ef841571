package sockets

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// procs counts the goroutines that keep a P while they wait in the kernel.
var procs struct {
	mu   sync.Mutex
	base int // GOMAXPROCS before the first HoldP
	held atomic.Int32
}

// HoldP reserves a P (one more GOMAXPROCS) for the calling goroutine, which
// is about to wait in the kernel through raw system calls (EpollWait, the
// held reads and writes) and so keeps its P while it sleeps, as a C
// program's thread keeps its CPU slot. Without the extra P, goroutines that
// hold Ps asleep would leave none for the rest of the program, which would
// then run only when sysmon preempts a sleeper (every 10 ms). release gives
// the reservation back; it is idempotent.
//
// GOMAXPROCS only grows, to base plus the most Ps held at once: an idle P
// costs a run queue, while shrinking would stop the world once per
// connection that a responder serves and closes.
func HoldP() (release func()) {
	procs.mu.Lock()
	if procs.base == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	held := procs.held.Add(1)
	if want := procs.base + int(held); runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
	procs.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			procs.held.Add(-1)
		})
	}
}

// SpareP reports whether the goroutines holding Ps leave at least one for
// the rest of the program. Someone may have lowered GOMAXPROCS since HoldP
// (testing.AllocsPerRun sets it to 1): then a holder must wait through the
// scheduler (a syscall it can see) instead, or the goroutines that would
// make its wait end could not run until sysmon preempted it, 10 ms later.
func SpareP() bool { return runtime.GOMAXPROCS(0) > int(procs.held.Load()) }

package iomodel

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/sockets"
)

// Model is how one end waits for the kernel.
type Model uint8

const (
	// Netpoll uses Go's net.Conn: goroutines parked on the runtime's epoll
	// (the M:N model). A Config's or a Server's zero value.
	Netpoll Model = iota
	// Blocking reads and writes a raw fd with blocking syscalls, one
	// goroutine keeping one OS thread and one P (the 1:1 model, as a C
	// client or sockperf does).
	Blocking
	// Spin busy-polls a non-blocking fd, one goroutine keeping one OS thread
	// and one P: no sleep and no wake-up on either side of the syscall, at
	// the price of a core.
	Spin
	// Auto picks Blocking or Netpoll for the run (Config.ChosenIO) or, in
	// a Server, per connection (Server.IO): blocking, as sysbench's and
	// sockperf's threads block, while the connections held at once are
	// few enough that each may keep an OS thread and a P (AutoHeldMax)
	// and the CPUs they may run on are not crowded (AutoPerCPU), the
	// netpoller beyond. The binaries' default; README.md has what each
	// choice cost against MariaDB (scripts/bench-mysql.sh measures it).
	Auto
)

// AutoHeldMax is the most connections Auto serves Blocking at once: each
// holds an OS thread and a P (GOMAXPROCS grows by one per connection), and
// the runtime caps GOMAXPROCS at 1024, past which a held connection's
// calls go through the scheduler anyway.
const AutoHeldMax = 512

// AutoPerCPU is how many blocking connections per CPU Auto allows. Beyond
// it every connection's thread wakes on its own for each reply where the
// netpoller's threads take several per wake-up; below it a blocked thread
// is woken by its reply directly, without the netpoller's hand-off to a
// goroutine. Which of the two costs the client less CPU per query depends
// on the machine and its load: scripts/bench-mysql.sh (PLACEMENT=packed
// THREADS=16 IO="default blocking") compares them at this limit.
const AutoPerCPU = 16

func (m Model) String() string {
	switch m {
	case Blocking:
		return "blocking"
	case Spin:
		return "spin"
	case Auto:
		return "auto"
	}
	return "netpoll"
}

// MarshalText prints the model by name in JSON configs.
func (m Model) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// Parse reads "auto", "netpoll", "blocking" or "spin"; "" is auto.
func Parse(s string) (Model, error) {
	switch s {
	case "auto", "":
		return Auto, nil
	case "netpoll":
		return Netpoll, nil
	case "blocking":
		return Blocking, nil
	case "spin":
		return Spin, nil
	}
	return Netpoll, fmt.Errorf("iomodel: I/O model %q: want auto, netpoll, blocking or spin", s)
}

// Limit is how many connections Auto serves blocking on cpus CPUs.
func Limit(cpus int) int { return min(AutoHeldMax, AutoPerCPU*max(cpus, 1)) }

// Choice is the I/O model a run uses and what chose it: the model asked
// for, or Auto's pick for Conns connections held at once on CPUs CPUs,
// against the Limit that may each hold an OS thread there.
type Choice struct {
	Model Model
	Auto  bool // picked by Auto; else as asked, and the counts are 0
	Conns int
	CPUs  int
	Limit int
}

// Choose is what Auto runs for n connections held at once on cpus CPUs:
// Blocking up to Limit(cpus), Netpoll beyond.
func Choose(n, cpus int) Choice {
	c := Choice{Model: Blocking, Auto: true, Conns: n, CPUs: cpus, Limit: Limit(cpus)}
	if n > c.Limit {
		c.Model = Netpoll
	}
	return c
}

// CPUsFor is how many CPUs connections pinned over list may run on: the
// distinct CPUs listed, or when none are, the calling thread's affinity
// mask (the process's, taskset), else every CPU.
func CPUsFor(list []int) int {
	if len(list) > 0 {
		seen := map[int]bool{}
		for _, c := range list {
			seen[c] = true
		}
		return len(seen)
	}
	if set, err := affinity.ThreadCPUs(); err == nil && set.Len() > 0 {
		return set.Len()
	}
	return runtime.NumCPU()
}

// Held reports whether the model's goroutine keeps its P while it waits.
func (m Model) Held() bool { return m != Netpoll }

func (m Model) fdMode() sockets.Mode {
	if m == Spin {
		return sockets.Spin
	}
	return sockets.Blocking
}

// Conn is a connection under one I/O model.
type Conn interface {
	io.ReadWriter
	Close() error
	// Interrupt wakes a Read or Write blocked on another goroutine.
	Interrupt()
}

// NetConn is a Netpoll connection: Go's own net.Conn.
type NetConn struct{ net.Conn }

// Interrupt closes the connection: a parked Read returns net.ErrClosed.
func (c NetConn) Interrupt() { c.Conn.Close() }

// A Blocking connection is a *sockets.Held: its reads and writes are raw
// system calls, so the goroutine keeps its P asleep in the kernel and the
// runtime does not hand it off and back around every message
// (sockets/rawio_linux.go says why). strace -c -f of a pingpong --io
// blocking client over 27,235 round trips through a relay counted 935
// futex, 8,245 nanosleep and 290 sched_yield with read and write made
// through syscall.Syscall. It is the conn itself, not wrapped in a type of
// ours, so that a Read or Write through the interface is the held call's
// own frame (sockets.Held says what a wrapper cost).

// under wraps a raw fd for model m.
func under(f *sockets.FD, m Model) (Conn, error) {
	if m != Blocking {
		return f, nil
	}
	if err := f.SetHeld(); err != nil {
		f.Close()
		return nil, err
	}
	return (*sockets.Held)(f), nil
}

// Dial connects to a under model m. Blocking and spin connections must then
// be used from the calling goroutine, which holds a P (Pin).
func Dial(ctx context.Context, a sockets.Addr, m Model) (Conn, error) {
	if m == Netpoll {
		c, err := sockets.Dial(ctx, a)
		if err != nil {
			return nil, err
		}
		return NetConn{c}, nil
	}
	f, err := sockets.DialFD(ctx, a, m.fdMode())
	if err != nil {
		return nil, err
	}
	return under(f, m)
}

// Adopt turns an accepted connection into one served under model m.
func Adopt(c net.Conn, m Model) (Conn, error) {
	if m == Netpoll {
		return NetConn{c}, nil
	}
	f, err := sockets.Detach(c, m.fdMode())
	if err != nil {
		return nil, err
	}
	return under(f, m)
}

// Pin prepares the calling goroutine for model m: a blocking or spinning
// goroutine gets a P of its own (sockets.HoldP), and when cpus is not empty
// the goroutine is locked to its OS thread and that thread pinned to
// cpus[i%len(cpus)]. It returns the CPU obtained (-1 when not pinned) and
// the function that undoes what it did.
//
// An unpinned goroutine is not locked: with raw system calls it keeps its M
// and P anyway, and when sysmon preempts it (every 10 ms of running) an
// unlocked goroutine simply runs on, where a locked one is handed to another
// M and back (stoplockedm, startlockedm: futex calls each time).
func Pin(m Model, cpus []int, i int) (cpu int, unlock func(), err error) {
	release := func() {}
	if m.Held() {
		release = sockets.HoldP()
	}
	if len(cpus) == 0 {
		return -1, release, nil
	}
	runtime.LockOSThread()
	want := cpus[i%len(cpus)]
	got, err := pinThread(want)
	if err != nil {
		// A refused mask leaves the thread as it was: it may go back.
		return -1, func() { runtime.UnlockOSThread(); release() }, err
	}
	// A pinned thread must not return to the runtime's pool to run other
	// goroutines on its narrowed mask: never unlocked, it exits with the
	// goroutine.
	return got, release, nil
}

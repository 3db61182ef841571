package sockets

import (
	"errors"
	"io"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Raw system calls for a goroutine that owns its descriptors and keeps its
// P while it waits in the kernel.
//
// Why: a goroutine that lives in system calls made through syscall.Syscall
// (entersyscall/exitsyscall) never goes through the scheduler, so its P's
// schedtick never advances. From the tenth millisecond on, sysmon's retake
// (runtime/proc.go) treats that P as running one goroutine too long; a
// goroutine in a syscall cannot be preempted (preemptone skips _Gsyscall), so
// on every sysmon tick that finds it asleep in the kernel sysmon takes the P
// away and hands it off: handoffp → startm wakes an M (futex), which finds
// nothing and sleeps again (futex), and because retake reported work sysmon
// resets its sleep to its shortest (nanosleep). On its way out of the syscall the
// goroutine must get a P back (exitsyscallTryGetP, which wakes sysmon out of
// its deep sleep: futex). perf record -g on raw_syscalls:sys_enter names
// exactly these stacks, and strace -c -f of a relay counts those futex and
// nanosleep calls in the same order as its reads and writes
// (docs/measurements.md, "Raw system calls").
//
// Made as raw system calls, the waits are invisible to the scheduler: the
// goroutine counts as running, keeps its P and M, and costs the runtime
// nothing per message. Sysmon then preempts it like any goroutine running
// for 10 ms: it signals the thread (SIGURG), which interrupts the wait with
// EINTR, and the helpers below yield on EINTR (runtime.Gosched), which is
// also what lets a stop-the-world proceed. That costs a handful of system
// calls per 10 ms instead of several per message. The price is a P per
// waiting goroutine: see HoldP.

// rawSock makes one recvfrom(2) or sendto(2) (trap) with flags and no
// address without telling the scheduler: on a connected stream socket the
// same as read(2) or write(2) (recv(2), send(2)), minus the file layer. A
// held FD's calls go this way, which is how sockperf makes them: read(2)
// and write(2) on a socket also pass through vfs_read/vfs_write, fdget_pos
// and its fput (a multithreaded process takes a reference on every call)
// and sock_read_iter/sock_write_iter, which perf record shows on the
// read/write side only; recvfrom and sendto go to the socket directly
// (docs/measurements.md, "Raw system calls").
//
// It is small enough to be inlined into Held.Read, Held.Write and the
// non-blocking calls, as is the spare-P test before it (spareP): the held
// path's frames and their cache lines count in a round trip that runs cold
// after the peer's turn. For the same reason the call itself is sockcall, a
// stub of one frame (sockcall_linux.go), not unix.RawSyscall6.
func rawSock(trap uintptr, fd int, p []byte, flags uintptr) (int, unix.Errno) {
	return sockcall(trap, fd, unsafe.Pointer(unsafe.SliceData(p)), len(p), flags)
}

// ReadNonblock reads into p from a Nonblocking FD as a raw recvfrom(2) (see
// rawSock for why not read(2)): a non-blocking read never sleeps, so the
// scheduler need not know. It returns io.EOF at end of stream and
// ErrWouldBlock when nothing is queued.
func (f *FD) ReadNonblock(p []byte) (int, error) { return RecvNonblock(f.Sysfd(), p) }

// WriteNonblock writes p to a Nonblocking FD as raw sendto(2) calls with
// MSG_NOSIGNAL (a peer gone is EPIPE, with no SIGPIPE to field), until all
// is written or the socket is full (the count so far and ErrWouldBlock).
func (f *FD) WriteNonblock(p []byte) (int, error) { return SendNonblock(f.Sysfd(), p) }

// RecvNonblock is ReadNonblock on the descriptor of a Nonblocking FD, for
// an owner that holds the FD open for as long as it calls this (an event
// loop, which closes its connections itself): a relayed message then costs
// no load of the FD's state, a cache line the kernel's work between two
// messages of one connection has most often evicted.
func RecvNonblock(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, e := rawSock(unix.SYS_RECVFROM, fd, p, 0)
		switch e {
		case 0:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, ErrWouldBlock
		}
		return 0, os.NewSyscallError("recvfrom", e)
	}
}

// SendNonblock is WriteNonblock on the descriptor of a Nonblocking FD, for
// an owner that holds the FD open for as long as it calls this (see
// RecvNonblock).
func SendNonblock(fd int, p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, e := rawSock(unix.SYS_SENDTO, fd, p[done:], unix.MSG_NOSIGNAL)
		if n > 0 {
			done += n
		}
		switch e {
		case 0, unix.EINTR:
			continue
		case unix.EAGAIN:
			return done, ErrWouldBlock
		}
		return done, os.NewSyscallError("sendto", e)
	}
	return done, nil
}

// Splice moves up to n bytes from in to out with splice(2) and
// SPLICE_F_NONBLOCK as a raw system call. Both ends must be non-blocking
// (O_NONBLOCK sockets, a pipe2(O_NONBLOCK) pipe), so the call never sleeps;
// it returns unix.EAGAIN, unix.EINVAL (no splice for this socket family)
// and the like as they come.
func Splice(in, out, n int) (int, error) {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_SPLICE, uintptr(in), 0, uintptr(out), 0, uintptr(n),
			unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
		switch e {
		case 0:
			return int(r), nil
		case unix.EINTR:
			continue
		}
		return 0, e
	}
}

// ErrInterrupted is what EpollWait returns when a signal ended the wait.
var ErrInterrupted = errors.New("sockets: wait interrupted by a signal")

// EpollWait is epoll_wait(2) as a raw system call, for a goroutine that
// keeps its P while it sleeps (see HoldP); epoll_pwait with no mask is
// epoll_wait on every architecture (arm64 has only the former). A wait
// interrupted by a signal returns ErrInterrupted after yielding to the
// scheduler: the signal is most often sysmon's preemption request or a
// stop-the-world, and the raw call hid the wait from both (epoll_wait is
// never restarted after a signal handler, whatever SA_RESTART says:
// signal(7)).
func EpollWait(epfd int, events []unix.EpollEvent, msec int) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), uintptr(msec), 0, 0)
	switch e {
	case 0:
		return int(n), nil
	case unix.EINTR:
		runtime.Gosched()
		return 0, ErrInterrupted
	}
	return 0, os.NewSyscallError("epoll_wait", e)
}

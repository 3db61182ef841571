package sockets

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FD is a socket descriptor that Go's netpoller does not watch: the blocking
// and spinning I/O models and the event-loop engines own and wait on it
// themselves. Handing an fd that the netpoller also watches to another epoll
// set would wake two pollers per event.
//
// The descriptor is reference counted, as Go's internal/poll counts its own:
// every operation holds it for the length of its syscalls, and Close marks
// it closed at once but leaves close(2) to whoever releases the last hold.
// So Interrupt, which may run on any thread, never shuts down a descriptor
// number that Close has freed and the kernel has handed to another socket
// (close(2), "Multithreaded processes and close()"), and Close on one thread
// cannot leave a reader on another asleep on a descriptor that no longer
// exists. Read, Write and Close are otherwise for the FD's owner; only
// Interrupt and Close may race with them.
type FD struct {
	fd     int           // never changes: only the last release closes it
	state  atomic.Uint64 // fdClosed | fdInterrupted | holds
	mode   Mode
	unlink *boundPath // UNIX listening path to remove at Close, if still ours
	pollIn bool       // a held UNIX stream: a read waits in ppoll(2) (SetHeld, Held.Read)
}

const (
	fdClosed      = 1 << 63 // Close has begun: no new holds
	fdInterrupted = 1 << 62 // Interrupt has shut the socket down
	fdHolds       = fdInterrupted - 1
)

// hold takes a reference for one operation; false once Close has begun.
// One compare-and-swap: the only cost the read and write paths pay for the
// lifecycle.
func (f *FD) hold() bool {
	for {
		s := f.state.Load()
		if s&fdClosed != 0 {
			return false
		}
		if f.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// release drops a hold. The release that leaves a closed FD without holds
// closes the descriptor, exactly once: a closed FD gains no new holds.
func (f *FD) release() error {
	s := f.state.Add(^uint64(0))
	if s&fdClosed == 0 || s&fdHolds != 0 {
		return nil
	}
	f.unlink.remove()
	if err := unix.Close(f.fd); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// stopped reports whether Close or Interrupt has begun, for the Spin loops.
func (f *FD) stopped() bool { return f.state.Load()&(fdClosed|fdInterrupted) != 0 }

// Sysfd returns the descriptor, for epoll_ctl and friends, or -1 after
// Close. It stays owned by f: the caller must not use it past Close.
func (f *FD) Sysfd() int {
	if f.state.Load()&fdClosed != 0 {
		return -1
	}
	return f.fd
}

// Mode returns how f waits.
func (f *FD) Mode() Mode { return f.mode }

// SetMode switches between blocking and non-blocking waiting (O_NONBLOCK).
func (f *FD) SetMode(m Mode) error {
	if !f.hold() {
		return fmt.Errorf("sockets: set mode %v: %w", m, ErrClosed)
	}
	defer f.release()
	if err := unix.SetNonblock(f.fd, m != Blocking); err != nil {
		return os.NewSyscallError("fcntl O_NONBLOCK", err)
	}
	f.mode = m
	return nil
}

// ignoringEINTR retries a syscall interrupted by a signal; Go installs its
// handlers with SA_RESTART, but not every syscall restarts (socket(7)
// timeouts, for one).
func ignoringEINTR(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// rw makes one read(2) or write(2). A Spin FD never sleeps in the kernel,
// so it skips the scheduler's syscall bookkeeping (entersyscall and
// exitsyscall, paid on every call) with RawSyscall: its goroutine keeps its
// P either way while it spins, and stays preemptible between calls. A
// Blocking FD must tell the scheduler, or a thread asleep in read(2) would
// hold a P that other goroutines need.
func (f *FD) rw(trap uintptr, p []byte) (int, error) {
	if f.mode != Spin {
		if trap == unix.SYS_READ {
			return unix.Read(f.fd, p)
		}
		return unix.Write(f.fd, p)
	}
	r, _, e := unix.RawSyscall(trap, uintptr(f.fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// Read reads into p. It returns io.EOF when the peer has shut down its
// write side, ErrWouldBlock for a Nonblocking FD with nothing to read, and
// in Spin mode retries until data, EOF, an error, or Interrupt.
func (f *FD) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !f.hold() {
		return 0, ErrClosed
	}
	n, err := f.read(p)
	f.release()
	return n, err
}

func (f *FD) read(p []byte) (int, error) {
	for {
		n, err := ignoringEINTR(func() (int, error) { return f.rw(unix.SYS_READ, p) })
		switch {
		case err == nil && n > 0:
			return n, nil
		case err == nil:
			return 0, io.EOF
		case err == unix.EAGAIN && f.mode == Spin:
			if f.stopped() {
				return 0, ErrClosed
			}
			continue
		case err == unix.EAGAIN:
			return 0, ErrWouldBlock
		}
		return 0, os.NewSyscallError("read", err)
	}
}

// Write writes p. A Nonblocking FD may write part of p and return
// ErrWouldBlock with the count; Blocking and Spin write it all.
func (f *FD) Write(p []byte) (int, error) {
	if !f.hold() {
		return 0, ErrClosed
	}
	n, err := f.write(p)
	f.release()
	return n, err
}

func (f *FD) write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := ignoringEINTR(func() (int, error) { return f.rw(unix.SYS_WRITE, p[done:]) })
		if n > 0 {
			done += n
		}
		switch {
		case err == nil:
			continue
		case err == unix.EAGAIN && f.mode == Spin:
			if f.stopped() {
				return done, ErrClosed
			}
			continue
		case err == unix.EAGAIN:
			return done, ErrWouldBlock
		}
		return done, os.NewSyscallError("write", err)
	}
	return done, nil
}

// Shutdown wraps shutdown(2). ShutWrite sends FIN after what is queued,
// which is how a relay passes a half-close on.
func (f *FD) Shutdown(how How) error {
	h := unix.SHUT_RDWR
	switch how {
	case ShutRead:
		h = unix.SHUT_RD
	case ShutWrite:
		h = unix.SHUT_WR
	}
	if !f.hold() {
		return fmt.Errorf("sockets: shutdown: %w", ErrClosed)
	}
	defer f.release()
	if err := unix.Shutdown(f.fd, h); err != nil {
		return os.NewSyscallError("shutdown", err)
	}
	return nil
}

// Interrupt wakes whoever waits on f in Read or Write, on any thread, by
// shutting the socket down both ways; their calls return EOF or ErrClosed.
// The owner still calls Close. Interrupt after or during Close does nothing
// to the descriptor, which Close may already have freed for reuse.
func (f *FD) Interrupt() {
	if f == nil || !f.hold() {
		return
	}
	f.state.Or(fdInterrupted)
	unix.Shutdown(f.fd, unix.SHUT_RDWR)
	f.release()
}

// Close closes the descriptor (and removes a UNIX listening path). It is
// idempotent and safe against a concurrent Interrupt: only the first call
// closes, and when another goroutine holds f in an operation at that
// moment, Close shuts the socket down to wake it, and the descriptor is
// closed as that operation returns; Close then returns nil at once, as Go's
// internal/poll does for a non-blocking descriptor.
func (f *FD) Close() error {
	if f == nil {
		return nil
	}
	for {
		s := f.state.Load()
		if s&fdClosed != 0 {
			return nil
		}
		// Close holds f itself, so that the wake-up below cannot race
		// with the last release.
		if f.state.CompareAndSwap(s, (s+1)|fdClosed) {
			if s&fdHolds != 0 {
				unix.Shutdown(f.fd, unix.SHUT_RDWR)
			}
			return f.release()
		}
	}
}

// Accept wraps accept4(2), the new socket non-blocking and close-on-exec. On
// a Nonblocking listener it returns ErrWouldBlock when the queue is empty.
func (f *FD) Accept() (*FD, error) {
	if !f.hold() {
		return nil, fmt.Errorf("sockets: accept: %w", ErrClosed)
	}
	defer f.release()
	for {
		nfd, _, err := unix.Accept4(f.fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		switch err {
		case nil:
			return &FD{fd: nfd, mode: Nonblocking}, nil
		case unix.EINTR, unix.ECONNABORTED:
			// The peer went away while queued: try the next one.
			continue
		case unix.EAGAIN:
			return nil, ErrWouldBlock
		}
		return nil, os.NewSyscallError("accept4", err)
	}
}

// ConnectResult reports how a non-blocking connect started by RawDial
// ended, once the fd polled writable (SO_ERROR).
func (f *FD) ConnectResult() error {
	if !f.hold() {
		return fmt.Errorf("sockets: connect result: %w", ErrClosed)
	}
	defer f.release()
	v, err := unix.GetsockoptInt(f.fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt SO_ERROR", err)
	}
	if v != 0 {
		return os.NewSyscallError("connect", syscall.Errno(v))
	}
	return nil
}

// SetNoDelay sets TCP_NODELAY on a TCP socket.
func (f *FD) SetNoDelay(on bool) error {
	if !f.hold() {
		return fmt.Errorf("sockets: setsockopt TCP_NODELAY: %w", ErrClosed)
	}
	defer f.release()
	v := 0
	if on {
		v = 1
	}
	return os.NewSyscallError("setsockopt TCP_NODELAY", unix.SetsockoptInt(f.fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, v))
}

// TCPInfo reads TCP_INFO from f.
func (f *FD) TCPInfo() (TCPInfo, error) {
	if !f.hold() {
		return TCPInfo{}, fmt.Errorf("sockets: getsockopt TCP_INFO: %w", ErrClosed)
	}
	defer f.release()
	return tcpInfo(f.fd)
}

func tcpInfo(fd int) (TCPInfo, error) {
	ti, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		return TCPInfo{}, os.NewSyscallError("getsockopt TCP_INFO", err)
	}
	return TCPInfo{
		RTT:          time.Duration(ti.Rtt) * time.Microsecond,
		RTTVar:       time.Duration(ti.Rttvar) * time.Microsecond,
		Retransmits:  ti.Retransmits,
		TotalRetrans: ti.Total_retrans,
		Unacked:      ti.Unacked,
	}, nil
}

// ReadTCPInfo reads TCP_INFO from a connection Go owns.
func ReadTCPInfo(c syscall.Conn) (TCPInfo, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return TCPInfo{}, err
	}
	var ti TCPInfo
	var terr error
	if err := rc.Control(func(fd uintptr) { ti, terr = tcpInfo(int(fd)) }); err != nil {
		return TCPInfo{}, err
	}
	return ti, terr
}

// Detach takes c's socket away from Go's netpoller and returns it as an FD
// in mode m: the descriptor is duplicated and c closed, which removes it
// from the netpoller's epoll set (EPOLL_CTL_DEL) so that only the FD's owner
// waits on it.
func Detach(c net.Conn, m Mode) (*FD, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("sockets: detach %T: not a socket", c)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		c.Close()
		return nil, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) { nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		c.Close()
		return nil, err
	}
	c.Close()
	if derr != nil {
		return nil, os.NewSyscallError("fcntl F_DUPFD_CLOEXEC", derr)
	}
	f := &FD{fd: nfd}
	if err := f.SetMode(m); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// DialFD connects to a with Dial's options and returns the socket as an FD
// in mode m.
func DialFD(ctx context.Context, a Addr, m Mode) (*FD, error) {
	c, err := Dial(ctx, a)
	if err != nil {
		return nil, err
	}
	return Detach(c, m)
}

// sockaddr resolves a into the kernel's form and the socket domain.
func (a Addr) sockaddr() (unix.Sockaddr, int, error) {
	if a.IsUnix() {
		return &unix.SockaddrUnix{Name: a.Path}, unix.AF_UNIX, nil
	}
	ta, err := net.ResolveTCPAddr(a.Network, a.NetAddr())
	if err != nil {
		return nil, 0, fmt.Errorf("sockets: resolve %s: %w", a.NetAddr(), err)
	}
	if ip4 := ta.IP.To4(); ip4 != nil && a.Network != "tcp6" {
		sa := &unix.SockaddrInet4{Port: ta.Port}
		copy(sa.Addr[:], ip4)
		return sa, unix.AF_INET, nil
	}
	sa := &unix.SockaddrInet6{Port: ta.Port}
	copy(sa.Addr[:], ta.IP.To16())
	return sa, unix.AF_INET6, nil
}

func socket(domain int) (*FD, error) {
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	return &FD{fd: fd}, nil
}

// RawListen opens a non-blocking listening socket for a, with its options
// and the UNIX path lifecycle as Listen applies them, and returns it with
// the address actually bound (the port the kernel chose for port 0).
func RawListen(a Addr) (*FD, Addr, error) {
	if a.Role == RoleConnect {
		return nil, a, fmt.Errorf("sockets: listen %s: address is a connect address", a)
	}
	a.Role = RoleListen
	sa, domain, err := a.sockaddr()
	if err != nil {
		return nil, a, err
	}
	if a.IsUnix() && a.Opts.UnlinkEarly {
		if err := removeStaleSocket(a.Path); err != nil {
			return nil, a, err
		}
	}
	f, err := socket(domain)
	if err != nil {
		return nil, a, err
	}
	fail := func(op string, err error) (*FD, Addr, error) {
		f.Close()
		return nil, a, fmt.Errorf("sockets: listen %s %s: %s: %w", a.Network, a.NetAddr(), op, err)
	}
	if !a.IsUnix() {
		// As Go's listeners do: a restarted relay rebinds at once.
		if err := unix.SetsockoptInt(f.fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
			return fail("setsockopt SO_REUSEADDR", err)
		}
	}
	if err := a.applyOptions(f.fd); err != nil {
		return fail("options", err)
	}
	if err := unix.Bind(f.fd, sa); err != nil {
		if a.IsUnix() && err == unix.EADDRINUSE {
			return fail("bind (path exists; add unlink-early to remove a stale socket)", err)
		}
		return fail("bind", err)
	}
	if a.IsUnix() {
		if f.unlink, err = bound(a.Path); err != nil {
			return fail("stat", err)
		}
		mode := a.Opts.Mode
		if mode == 0 {
			mode = DefaultMode
		}
		if err := os.Chmod(a.Path, os.FileMode(mode)); err != nil {
			return fail("chmod", err)
		}
	}
	backlog := a.Opts.Backlog
	if backlog == 0 {
		backlog = unix.SOMAXCONN
	}
	if err := unix.Listen(f.fd, backlog); err != nil {
		return fail("listen", err)
	}
	if !a.IsUnix() && a.Port == 0 {
		got, err := unix.Getsockname(f.fd)
		if err != nil {
			return fail("getsockname", err)
		}
		switch v := got.(type) {
		case *unix.SockaddrInet4:
			a.Port = v.Port
		case *unix.SockaddrInet6:
			a.Port = v.Port
		}
	}
	return f, a, nil
}

// RawDial starts a non-blocking connect to a and returns at once. When the
// fd polls writable, ConnectResult says how the connect ended. A connect
// that completes at once (UNIX sockets usually do) is just as fine.
func RawDial(a Addr) (*FD, error) {
	d, err := NewRawDialer(a)
	if err != nil {
		return nil, err
	}
	return d.Dial()
}

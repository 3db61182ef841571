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
type FD struct {
	fd     int
	mode   Mode
	closed atomic.Bool
	unlink *boundPath // UNIX listening path to remove at Close, if still ours
}

// NewFD takes ownership of a socket descriptor the caller created.
func NewFD(fd int, m Mode) *FD { return &FD{fd: fd, mode: m} }

// Sysfd returns the descriptor, for epoll_ctl and friends. It stays owned by f.
func (f *FD) Sysfd() int { return f.fd }

// Mode returns how f waits.
func (f *FD) Mode() Mode { return f.mode }

// SetMode switches between blocking and non-blocking waiting (O_NONBLOCK).
func (f *FD) SetMode(m Mode) error {
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
// exitsyscall, about 100 ns a call) with RawSyscall: its goroutine keeps its
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
	for {
		n, err := ignoringEINTR(func() (int, error) { return f.rw(unix.SYS_READ, p) })
		switch {
		case err == nil && n > 0:
			return n, nil
		case err == nil:
			return 0, io.EOF
		case err == unix.EAGAIN && f.mode == Spin:
			if f.closed.Load() {
				return 0, ErrClosed
			}
			continue
		case err == unix.EAGAIN:
			return 0, ErrWouldBlock
		case err == unix.EBADF && f.closed.Load():
			return 0, ErrClosed
		}
		return 0, os.NewSyscallError("read", err)
	}
}

// Write writes p. A Nonblocking FD may write part of p and return
// ErrWouldBlock with the count; Blocking and Spin write it all.
func (f *FD) Write(p []byte) (int, error) {
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
			if f.closed.Load() {
				return done, ErrClosed
			}
			continue
		case err == unix.EAGAIN:
			return done, ErrWouldBlock
		case err == unix.EBADF && f.closed.Load():
			return done, ErrClosed
		}
		return done, os.NewSyscallError("write", err)
	}
	return done, nil
}

// Shutdown wraps shutdown(2). ShutWrite sends FIN after what is queued,
// which is how a relay passes a half-close on.
func (f *FD) Shutdown(how How) error {
	h := map[How]int{ShutRead: unix.SHUT_RD, ShutWrite: unix.SHUT_WR, ShutBoth: unix.SHUT_RDWR}[how]
	if err := unix.Shutdown(f.fd, h); err != nil {
		return os.NewSyscallError("shutdown", err)
	}
	return nil
}

// Interrupt wakes whoever waits on f in Read or Write, on any thread, by
// shutting the socket down both ways; their calls return EOF or ErrClosed.
// The owner still calls Close.
func (f *FD) Interrupt() {
	f.closed.Store(true)
	unix.Shutdown(f.fd, unix.SHUT_RDWR)
}

// Close closes the descriptor (and removes a UNIX listening path). It is
// idempotent; only the first call closes.
func (f *FD) Close() error {
	if f == nil || f.fd < 0 {
		return nil
	}
	f.closed.Store(true)
	fd := f.fd
	f.fd = -1
	f.unlink.remove()
	if err := unix.Close(fd); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// Accept wraps accept4(2), the new socket non-blocking and close-on-exec. On
// a Nonblocking listener it returns ErrWouldBlock when the queue is empty.
func (f *FD) Accept() (*FD, error) {
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
	v := 0
	if on {
		v = 1
	}
	return os.NewSyscallError("setsockopt TCP_NODELAY", unix.SetsockoptInt(f.fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, v))
}

// TCPInfo reads TCP_INFO from f.
func (f *FD) TCPInfo() (TCPInfo, error) { return tcpInfo(f.fd) }

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
	if a.Role == RoleListen {
		return nil, fmt.Errorf("sockets: dial %s: address is a listen address", a)
	}
	a.Role = RoleConnect
	sa, domain, err := a.sockaddr()
	if err != nil {
		return nil, err
	}
	f, err := socket(domain)
	if err != nil {
		return nil, err
	}
	if err := a.applyOptions(f.fd); err != nil {
		f.Close()
		return nil, fmt.Errorf("sockets: dial %s: %w", a.NetAddr(), err)
	}
	if a.Opts.Bind != "" {
		la := Addr{Network: a.Network, Role: RoleAny, Host: a.Opts.Bind}
		if h, p, err := net.SplitHostPort(a.Opts.Bind); err == nil {
			la.Host = h
			la.Port, _ = parsePort(p, true)
		}
		lsa, _, err := la.sockaddr()
		if err == nil {
			err = os.NewSyscallError("bind", unix.Bind(f.fd, lsa))
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("sockets: dial %s: bind=%s: %w", a.NetAddr(), a.Opts.Bind, err)
		}
	}
	err = unix.Connect(f.fd, sa)
	if err != nil && err != unix.EINPROGRESS && err != unix.EINTR {
		f.Close()
		return nil, fmt.Errorf("sockets: dial %s %s: %w", a.Network, a.NetAddr(), os.NewSyscallError("connect", err))
	}
	return f, nil
}

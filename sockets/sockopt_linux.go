package sockets

import (
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// control applies a's socket options between socket(2) and bind(2) or
// connect(2), which is when SO_REUSEPORT and the buffer sizes must be set
// (a listener's buffer sizes are inherited by the sockets it accepts).
func (a Addr) control(network, address string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) { serr = a.applyOptions(int(fd)) })
	if err != nil {
		return err
	}
	return serr
}

func (a Addr) applyOptions(fd int) error {
	o := a.Opts
	set := func(level, opt, v int, name string) error {
		if err := unix.SetsockoptInt(fd, level, opt, v); err != nil {
			return os.NewSyscallError("setsockopt "+name, err)
		}
		return nil
	}
	if !a.IsUnix() {
		if o.ReuseAddr {
			if err := set(unix.SOL_SOCKET, unix.SO_REUSEADDR, 1, "SO_REUSEADDR"); err != nil {
				return err
			}
		}
		if o.ReusePort {
			if err := set(unix.SOL_SOCKET, unix.SO_REUSEPORT, 1, "SO_REUSEPORT"); err != nil {
				return err
			}
		}
		nd := 1
		if o.NoDelay == Off {
			nd = 0
		}
		if err := set(unix.IPPROTO_TCP, unix.TCP_NODELAY, nd, "TCP_NODELAY"); err != nil {
			return err
		}
	}
	if o.RcvBuf != 0 {
		if err := set(unix.SOL_SOCKET, unix.SO_RCVBUF, o.RcvBuf, "SO_RCVBUF"); err != nil {
			return err
		}
	}
	if o.SndBuf != 0 {
		if err := set(unix.SOL_SOCKET, unix.SO_SNDBUF, o.SndBuf, "SO_SNDBUF"); err != nil {
			return err
		}
	}
	return nil
}

// setBacklog calls listen(2) again with the asked backlog: Linux updates
// the accept queue limit of a socket that already listens.
func setBacklog(ln net.Listener, backlog int) error {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return fmt.Errorf("sockets: backlog: listener %T has no fd", ln)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) { lerr = unix.Listen(int(fd), backlog) }); err != nil {
		return err
	}
	if lerr != nil {
		return fmt.Errorf("sockets: backlog=%d: %w", backlog, os.NewSyscallError("listen", lerr))
	}
	return nil
}

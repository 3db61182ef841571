//go:build !linux

package sockets

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

func (a Addr) control(network, address string, rc syscall.RawConn) error {
	o := a.Opts
	if o.ReusePort || o.RcvBuf != 0 || o.SndBuf != 0 {
		return fmt.Errorf("sockets: socket options on this platform: %w", errors.ErrUnsupported)
	}
	return nil
}

func setBacklog(ln net.Listener, backlog int) error {
	return fmt.Errorf("sockets: backlog: %w", errors.ErrUnsupported)
}

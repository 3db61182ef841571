package sockets

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// RawDialer is RawDial with the address (and any bind= address) resolved
// once, when it is made: an event loop dials its upstream for every
// connection it accepts, and resolving there would allocate per connection
// and, for a host name, stall every connection the loop owns while the
// resolver waits. A name is therefore looked up at start only, as HAProxy
// does without a resolvers section; a DNS change needs a restart. A
// RawDialer is for one goroutine: connect(2) encodes the address into the
// Sockaddr it is given, so concurrent loops each take a Copy.
type RawDialer struct {
	a      Addr
	sa     unix.Sockaddr
	lsa    unix.Sockaddr // bind= address, nil when none
	domain int
}

// NewRawDialer resolves a for Dial.
func NewRawDialer(a Addr) (*RawDialer, error) {
	if a.Role == RoleListen {
		return nil, fmt.Errorf("sockets: dial %s: address is a listen address", a)
	}
	a.Role = RoleConnect
	sa, domain, err := a.sockaddr()
	if err != nil {
		return nil, err
	}
	d := &RawDialer{a: a, sa: sa, domain: domain}
	if a.Opts.Bind != "" {
		la := Addr{Network: a.Network, Role: RoleAny, Host: a.Opts.Bind}
		if h, p, err := net.SplitHostPort(a.Opts.Bind); err == nil {
			la.Host = h
			la.Port, _ = parsePort(p, true)
		}
		if d.lsa, _, err = la.sockaddr(); err != nil {
			return nil, fmt.Errorf("sockets: dial %s: bind=%s: %w", a.NetAddr(), a.Opts.Bind, err)
		}
	}
	return d, nil
}

// Copy returns a dialer for another goroutine, with its own Sockaddrs.
func (d *RawDialer) Copy() *RawDialer {
	c := *d
	c.sa, c.lsa = copySockaddr(d.sa), copySockaddr(d.lsa)
	return &c
}

func copySockaddr(sa unix.Sockaddr) unix.Sockaddr {
	switch v := sa.(type) {
	case *unix.SockaddrInet4:
		return &unix.SockaddrInet4{Port: v.Port, Addr: v.Addr}
	case *unix.SockaddrInet6:
		return &unix.SockaddrInet6{Port: v.Port, ZoneId: v.ZoneId, Addr: v.Addr}
	case *unix.SockaddrUnix:
		return &unix.SockaddrUnix{Name: v.Name}
	}
	return sa
}

// Dial starts a non-blocking connect, as RawDial does, without resolving.
func (d *RawDialer) Dial() (*FD, error) {
	f, err := socket(d.domain)
	if err != nil {
		return nil, err
	}
	if err := d.a.applyOptions(f.Sysfd()); err != nil {
		f.Close()
		return nil, fmt.Errorf("sockets: dial %s: %w", d.a.NetAddr(), err)
	}
	if d.lsa != nil {
		if err := unix.Bind(f.Sysfd(), d.lsa); err != nil {
			f.Close()
			return nil, fmt.Errorf("sockets: dial %s: bind=%s: %w", d.a.NetAddr(), d.a.Opts.Bind, os.NewSyscallError("bind", err))
		}
	}
	if err := unix.Connect(f.Sysfd(), d.sa); err != nil && err != unix.EINPROGRESS && err != unix.EINTR {
		f.Close()
		return nil, fmt.Errorf("sockets: dial %s %s: %w", d.a.Network, d.a.NetAddr(), os.NewSyscallError("connect", err))
	}
	return f, nil
}

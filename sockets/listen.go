package sockets

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// Listener serves an Addr. Accept applies the per-connection options and
// returns the connection unwrapped (*net.TCPConn or *net.UnixConn), so that
// io.Copy between two of them can still use splice(2) and sendfile(2).
type Listener struct {
	net.Listener
	addr   Addr
	unlink *boundPath // a UNIX listener's path, removed at Close if still ours
}

// Close closes the listener and, for UNIX, removes its path if the path
// still names the socket this listener bound.
func (l *Listener) Close() error {
	err := l.Listener.Close()
	l.unlink.remove()
	return err
}

// boundPath is a UNIX socket path as bind(2) created it: the node's
// identity (device and inode) tells it apart from a socket another
// listener put at the same path later, after removing ours with
// unlink-early.
type boundPath struct {
	path string
	node os.FileInfo
}

// bound records the node now at path, which bind just created.
func bound(path string) (*boundPath, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	return &boundPath{path: path, node: st}, nil
}

// remove unlinks the path if it still names the bound node (os.SameFile
// compares device and inode). A path taken over by another listener, or
// already gone, is left alone. Between the check and unlink(2) another
// process could still replace the node: there is no unlink by inode, and
// the window is two syscalls wide.
func (b *boundPath) remove() {
	if b == nil {
		return
	}
	st, err := os.Lstat(b.path)
	if err != nil || !os.SameFile(st, b.node) {
		return
	}
	os.Remove(b.path)
}

// Spec returns the address the listener was asked for, with the port the
// kernel chose when it was 0 (use FromNet on Listener.Listener.Addr() for
// the dialable form).
func (l *Listener) Spec() Addr { return l.addr }

// Accept waits for the next connection and applies TCP_NODELAY as the
// address says (on by default).
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		if err := tc.SetNoDelay(l.addr.Opts.NoDelay != Off); err != nil {
			tc.Close()
			return nil, fmt.Errorf("sockets: accept on %s: set TCP_NODELAY: %w", l.addr.NetAddr(), err)
		}
	}
	return c, nil
}

// Listen opens a listening socket for a, which must have RoleListen or
// RoleAny. TCP listeners bind 127.0.0.1 (::1 for tcp6) unless a names a host.
// A UNIX listener follows the path lifecycle: unlink-early removes a stale
// socket (and refuses any other kind of file), the socket gets mode= (0600 by
// default), and Close removes the path.
func Listen(ctx context.Context, a Addr) (*Listener, error) {
	if a.Role == RoleConnect {
		return nil, fmt.Errorf("sockets: listen %s: address is a connect address", a)
	}
	a.Role = RoleListen
	network := a.Network
	if a.IsUnix() {
		if a.Opts.UnlinkEarly {
			if err := removeStaleSocket(a.Path); err != nil {
				return nil, err
			}
		}
	}
	lc := net.ListenConfig{Control: a.control}
	ln, err := lc.Listen(ctx, network, a.NetAddr())
	if err != nil {
		if a.IsUnix() && errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("sockets: listen unix %s: path exists (add unlink-early to remove a stale socket): %w", a.Path, err)
		}
		return nil, fmt.Errorf("sockets: listen %s %s: %w", network, a.NetAddr(), unwrapOp(err))
	}
	if a.Opts.Backlog != 0 {
		if err := setBacklog(ln, a.Opts.Backlog); err != nil {
			ln.Close()
			return nil, err
		}
	}
	var unlink *boundPath
	if ul, ok := ln.(*net.UnixListener); ok {
		// Go would unlink the path at Close whoever owns it by then.
		ul.SetUnlinkOnClose(false)
		if unlink, err = bound(a.Path); err != nil {
			ln.Close()
			return nil, fmt.Errorf("sockets: listen unix %s: %w", a.Path, err)
		}
		mode := os.FileMode(a.Opts.Mode)
		if mode == 0 {
			mode = DefaultMode
		}
		// The window between bind and chmod is the umask's: bind creates
		// the node as 0777 &^ umask. A private mode is applied before any
		// client can be accepted.
		if err := os.Chmod(a.Path, mode); err != nil {
			ln.Close()
			unlink.remove()
			return nil, fmt.Errorf("sockets: listen unix %s: chmod %o: %w", a.Path, mode, err)
		}
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && a.Port == 0 {
		a.Port = ta.Port
	}
	return &Listener{Listener: ln, addr: a, unlink: unlink}, nil
}

// Dial connects to a, which must have RoleConnect or RoleAny, applying its
// options; TCP_NODELAY is on unless a says nodelay=0. The connection comes
// back unwrapped.
func Dial(ctx context.Context, a Addr) (net.Conn, error) {
	if a.Role == RoleListen {
		return nil, fmt.Errorf("sockets: dial %s: address is a listen address", a)
	}
	if !a.IsUnix() && a.Host == "" {
		return nil, fmt.Errorf("sockets: dial %s: no host", a)
	}
	a.Role = RoleConnect
	d := net.Dialer{Control: a.control}
	if a.Opts.Bind != "" {
		la, err := net.ResolveTCPAddr(a.Network, bindHostPort(a.Opts.Bind))
		if err != nil {
			return nil, fmt.Errorf("sockets: dial %s: bind=%s: %w", a.NetAddr(), a.Opts.Bind, err)
		}
		d.LocalAddr = la
	}
	c, err := d.DialContext(ctx, a.Network, a.NetAddr())
	if err != nil {
		return nil, fmt.Errorf("sockets: dial %s %s: %w", a.Network, a.NetAddr(), unwrapOp(err))
	}
	if tc, ok := c.(*net.TCPConn); ok && a.Opts.NoDelay == Off {
		if err := tc.SetNoDelay(false); err != nil {
			tc.Close()
			return nil, fmt.Errorf("sockets: dial %s: clear TCP_NODELAY: %w", a.NetAddr(), err)
		}
	}
	return c, nil
}

// bindHostPort accepts bind=HOST or bind=HOST:PORT.
func bindHostPort(s string) string {
	if _, _, err := net.SplitHostPort(s); err == nil {
		return s
	}
	return net.JoinHostPort(s, "0")
}

// unwrapOp drops net.OpError's own "dial tcp ADDR:" prefix, since our
// message already names the operation and the address.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// removeStaleSocket removes path if it is a socket; a missing path is fine;
// anything else (a regular file, a directory) is an error, never deleted.
func removeStaleSocket(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sockets: unlink-early %s: %w", path, err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("sockets: unlink-early %s: not a socket but a %s, refusing to remove it", path, fileType(st.Mode()))
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sockets: unlink-early %s: %w", path, err)
	}
	return nil
}

// fileTypes are the kinds of file stat(1) names, tested in this order:
// a character device carries ModeDevice too.
var fileTypes = []struct {
	bit  os.FileMode
	name string
}{
	{os.ModeDir, "directory"},
	{os.ModeSymlink, "symbolic link"},
	{os.ModeNamedPipe, "fifo"},
	{os.ModeCharDevice, "character special file"},
	{os.ModeDevice, "block special file"},
	{os.ModeSocket, "socket"},
}

// fileType names the kind of file m describes, as stat(1) does.
func fileType(m os.FileMode) string {
	t := m.Type()
	if t == 0 {
		return "regular file"
	}
	for _, ft := range fileTypes {
		if t&ft.bit != 0 {
			return ft.name
		}
	}
	return "file of mode " + t.String()
}

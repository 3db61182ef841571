package sockets

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func mustParse(t *testing.T, s string) Addr {
	t.Helper()
	a, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func sockopt(t *testing.T, c syscall.Conn, level, opt int) int {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	rc.Control(func(fd uintptr) { v, gerr = unix.GetsockoptInt(int(fd), level, opt) })
	if gerr != nil {
		t.Fatal(gerr)
	}
	return v
}

// pair listens on l, dials the listener with connect options d, and returns
// both ends.
func pair(t *testing.T, l, d string) (*Listener, net.Conn, net.Conn) {
	t.Helper()
	ctx := context.Background()
	ln, err := Listen(ctx, mustParse(t, l))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	target := ln.Spec().FromNet(ln.Addr())
	target.Opts = mustParse(t, d).Opts
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	c, err := Dial(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.FailNow()
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return ln, c, s
}

func TestTCPOptions(t *testing.T) {
	ln, c, s := pair(t, "TCP4-LISTEN:0,reuseport,rcvbuf=65536,sndbuf=32768,backlog=7", "tcp::1,rcvbuf=16384")
	lc := ln.Listener.(*net.TCPListener)
	if v := sockopt(t, lc, unix.SOL_SOCKET, unix.SO_REUSEPORT); v != 1 {
		t.Errorf("listener SO_REUSEPORT = %d", v)
	}
	// The kernel doubles the asked size for bookkeeping (socket(7)).
	if v := sockopt(t, lc, unix.SOL_SOCKET, unix.SO_RCVBUF); v != 2*65536 {
		t.Errorf("listener SO_RCVBUF = %d, want %d", v, 2*65536)
	}
	if v := sockopt(t, s.(*net.TCPConn), unix.SOL_SOCKET, unix.SO_SNDBUF); v != 2*32768 {
		t.Errorf("accepted SO_SNDBUF = %d (inherited from the listener), want %d", v, 2*32768)
	}
	if v := sockopt(t, c.(*net.TCPConn), unix.SOL_SOCKET, unix.SO_RCVBUF); v != 2*16384 {
		t.Errorf("dialed SO_RCVBUF = %d, want %d", v, 2*16384)
	}
	for name, conn := range map[string]net.Conn{"accepted": s, "dialed": c} {
		if v := sockopt(t, conn.(*net.TCPConn), unix.IPPROTO_TCP, unix.TCP_NODELAY); v == 0 {
			t.Errorf("%s TCP_NODELAY off by default", name)
		}
	}
	if ip := ln.Addr().(*net.TCPAddr).IP.String(); ip != "127.0.0.1" {
		t.Errorf("listener with no host bound %s, want 127.0.0.1", ip)
	}
	// Backlog took effect: Linux reports it in ss as the listener's max
	// queue, which reads back through TCP_INFO's tcpi_sacked field.
	rc, _ := lc.SyscallConn()
	rc.Control(func(fd uintptr) {
		ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			t.Fatal(err)
		}
		if ti.Sacked != 7 {
			t.Errorf("listen backlog = %d, want 7", ti.Sacked)
		}
	})
}

func TestNoDelayOff(t *testing.T) {
	_, c, s := pair(t, "TCP-LISTEN:0,nodelay=0", "tcp::1,nodelay=0")
	for name, conn := range map[string]net.Conn{"accepted": s, "dialed": c} {
		if v := sockopt(t, conn.(*net.TCPConn), unix.IPPROTO_TCP, unix.TCP_NODELAY); v != 0 {
			t.Errorf("%s TCP_NODELAY = %d with nodelay=0", name, v)
		}
	}
}

// TestReuseAddr checks that the reuseaddr option is what sets SO_REUSEADDR.
// A listener cannot show it, since Go sets SO_REUSEADDR on every TCP
// listener (RawListen too); so the options are applied to a bare socket,
// which nothing else touches, and to dialed sockets, on which Go never sets
// it: with the option it must be on, without it off.
func TestReuseAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want int
	}{
		{"TCP4-LISTEN:0,reuseaddr", 1},
		{"TCP4-LISTEN:0", 0},
		{"tcp4:127.0.0.1:1,reuseaddr", 1},
		{"tcp4:127.0.0.1:1", 0},
	} {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := mustParse(t, tc.addr).applyOptions(fd); err != nil {
			t.Errorf("%s: %v", tc.addr, err)
		}
		v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		if v != tc.want {
			t.Errorf("%s: SO_REUSEADDR = %d on a bare socket, want %d", tc.addr, v, tc.want)
		}
	}
	for opts, want := range map[string]int{"tcp::1,reuseaddr": 1, "tcp::1": 0} {
		_, c, _ := pair(t, "TCP-LISTEN:0", opts)
		if v := sockopt(t, c.(*net.TCPConn), unix.SOL_SOCKET, unix.SO_REUSEADDR); v != want {
			t.Errorf("dialed with %q: SO_REUSEADDR = %d, want %d", opts, v, want)
		}
	}
}

func TestDialBind(t *testing.T) {
	_, c, s := pair(t, "TCP-LISTEN:0", "tcp::1,bind=127.0.0.3")
	if got := c.LocalAddr().(*net.TCPAddr).IP.String(); got != "127.0.0.3" {
		t.Errorf("dial bind=127.0.0.3: local address %s", got)
	}
	if got := s.RemoteAddr().(*net.TCPAddr).IP.String(); got != "127.0.0.3" {
		t.Errorf("server sees %s", got)
	}
}

func TestDialRefused(t *testing.T) {
	ln, err := Listen(context.Background(), mustParse(t, "tcp::0"))
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Spec().FromNet(ln.Addr())
	ln.Close()
	_, err = Dial(context.Background(), a)
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), a.NetAddr()) {
		t.Fatalf("dial closed port: %v, want ECONNREFUSED naming %s", err, a.NetAddr())
	}
}

func TestUnixLifecycle(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.sock")
	ctx := context.Background()

	ln, err := Listen(ctx, mustParse(t, "UNIX-LISTEN:"+path+",fork"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != DefaultMode {
		t.Fatalf("socket node: %v %v, want a socket with mode %o", st.Mode(), err, DefaultMode)
	}
	c, err := Dial(ctx, mustParse(t, "UNIX-CONNECT:"+path))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*net.UnixConn); !ok {
		t.Errorf("accepted %T, want *net.UnixConn unwrapped", s)
	}
	c.Close()
	s.Close()
	ln.Close()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("path left after Close: %v", err)
	}

	// A stale socket: without unlink-early the listen fails and says why.
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	if _, err := Listen(ctx, mustParse(t, "unix:"+path)); err == nil || !strings.Contains(err.Error(), "unlink-early") {
		t.Fatalf("listen over a stale socket: %v, want a hint at unlink-early", err)
	}
	ln, err = Listen(ctx, mustParse(t, "UNIX-LISTEN:"+path+",unlink-early,mode=660"))
	if err != nil {
		t.Fatalf("unlink-early over a stale socket: %v", err)
	}
	if st, _ := os.Lstat(path); st.Mode().Perm() != 0o660 {
		t.Errorf("mode=660 gave %o", st.Mode().Perm())
	}
	ln.Close()

	// Never delete a regular file or a directory.
	for kind, named := range map[string]string{"file": "not a socket but a regular file", "dir": "not a socket but a directory"} {
		p := filepath.Join(dir, kind)
		if kind == "file" {
			os.WriteFile(p, []byte("precious"), 0o644)
		} else {
			os.Mkdir(p, 0o755)
		}
		_, err := Listen(ctx, mustParse(t, "UNIX-LISTEN:"+p+",unlink-early"))
		if err == nil || !strings.Contains(err.Error(), named) {
			t.Errorf("unlink-early on a %s: %v, want a refusal saying %q", kind, err, named)
		}
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("unlink-early removed a %s: %v", kind, err)
		}
	}
}

func TestRoleChecks(t *testing.T) {
	if _, err := Listen(context.Background(), mustParse(t, "TCP-CONNECT:h:1")); err == nil {
		t.Error("Listen on a connect address succeeded")
	}
	if _, err := Dial(context.Background(), mustParse(t, "TCP-LISTEN:1")); err == nil {
		t.Error("Dial of a listen address succeeded")
	}
	if _, err := Dial(context.Background(), mustParse(t, "tcp::1")); err == nil {
		t.Error("Dial without a host succeeded")
	}
}

// TestUnixTakeover: listener A binds a path, listener B takes it over with
// unlink-early; closing A must leave B's socket in place and reachable.
// Both listeners kinds are covered: Listen (net) and RawListen (the fd the
// epoll relay engine serves).
func TestUnixTakeover(t *testing.T) {
	ctx := context.Background()
	type closer interface{ Close() error }
	listen := map[string]func(Addr) (closer, error){
		"Listen":    func(a Addr) (closer, error) { return Listen(ctx, a) },
		"RawListen": func(a Addr) (closer, error) { f, _, err := RawListen(a); return f, err },
	}
	for name, fn := range listen {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.sock")
			a, err := fn(mustParse(t, "UNIX-LISTEN:"+path))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := fn(mustParse(t, "UNIX-LISTEN:"+path+",unlink-early"))
			if err != nil {
				t.Fatal(err)
			}
			a.Close()
			if _, err := os.Lstat(path); err != nil {
				t.Fatalf("closing the old listener removed the new one's path: %v", err)
			}
			c, err := Dial(ctx, mustParse(t, "UNIX-CONNECT:"+path))
			if err != nil {
				t.Fatalf("the new listener is unreachable: %v", err)
			}
			c.Close()
			b.Close()
			if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the owner's Close left its path: %v", err)
			}
		})
	}
}

func TestFileType(t *testing.T) {
	for m, want := range map[os.FileMode]string{
		0o644: "regular file", os.ModeDir | 0o755: "directory", os.ModeSymlink: "symbolic link",
		os.ModeNamedPipe: "fifo", os.ModeDevice | os.ModeCharDevice: "character special file", os.ModeDevice: "block special file",
	} {
		if got := fileType(m); got != want {
			t.Errorf("fileType(%v) = %q, want %q", m, got, want)
		}
	}
}

package sockets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// waitFD blocks in poll(2) until fd has the events (the test's stand-in
// for an engine's epoll loop).
func waitFD(t *testing.T, f *FD, events int16) {
	t.Helper()
	pfd := []unix.PollFd{{Fd: int32(f.Sysfd()), Events: events}}
	for {
		n, err := unix.Poll(pfd, 5000)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n != 1 {
			t.Fatalf("poll fd %d: n=%d err=%v", f.Sysfd(), n, err)
		}
		return
	}
}

func rawAddrs(t *testing.T) map[string]Addr {
	return map[string]Addr{
		"tcp":  mustParse(t, "TCP4-LISTEN:0"),
		"tcp6": mustParse(t, "TCP6-LISTEN:0"),
		"unix": mustParse(t, "UNIX-LISTEN:"+filepath.Join(t.TempDir(), "raw.sock")),
	}
}

func TestRawListenDialAccept(t *testing.T) {
	for name, la := range rawAddrs(t) {
		t.Run(name, func(t *testing.T) {
			ln, bound, err := RawListen(la)
			if err != nil {
				if name == "tcp6" && errors.Is(err, syscall.EADDRNOTAVAIL) {
					t.Skip("no IPv6 loopback on this machine")
				}
				t.Fatal(err)
			}
			defer ln.Close()
			if !la.IsUnix() && bound.Port == 0 {
				t.Fatal("RawListen did not report the kernel's port")
			}
			if _, err := ln.Accept(); !errors.Is(err, ErrWouldBlock) {
				t.Fatalf("Accept on an empty queue: %v, want ErrWouldBlock", err)
			}
			target := bound
			target.Role = RoleConnect
			if !target.IsUnix() {
				target.Host = bound.ListenHost()
			}
			c, err := RawDial(target)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			waitFD(t, c, unix.POLLOUT)
			if err := c.ConnectResult(); err != nil {
				t.Fatalf("connect: %v", err)
			}
			waitFD(t, ln, unix.POLLIN)
			s, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()

			msg := []byte("hello through a raw socket")
			if n, err := c.Write(msg); n != len(msg) || err != nil {
				t.Fatalf("write: %d %v", n, err)
			}
			waitFD(t, s, unix.POLLIN)
			buf := make([]byte, 64)
			n, err := s.Read(buf)
			if err != nil || !bytes.Equal(buf[:n], msg) {
				t.Fatalf("read %q %v", buf[:n], err)
			}
			if _, err := s.Read(buf); !errors.Is(err, ErrWouldBlock) {
				t.Fatalf("read of an empty socket: %v, want ErrWouldBlock", err)
			}
			// Half-close: the reader sees EOF, and can still write back.
			if err := c.Shutdown(ShutWrite); err != nil {
				t.Fatal(err)
			}
			waitFD(t, s, unix.POLLIN)
			if _, err := s.Read(buf); err != io.EOF {
				t.Fatalf("read after peer's SHUT_WR: %v, want EOF", err)
			}
			if _, err := s.Write([]byte("late answer")); err != nil {
				t.Fatalf("write after peer's half-close: %v", err)
			}
			waitFD(t, c, unix.POLLIN)
			if n, err := c.Read(buf); err != nil || string(buf[:n]) != "late answer" {
				t.Fatalf("answer after half-close: %q %v", buf[:n], err)
			}
		})
	}
}

func TestRawDialRefused(t *testing.T) {
	ln, bound, err := RawListen(mustParse(t, "TCP4-LISTEN:0"))
	if err != nil {
		t.Fatal(err)
	}
	bound.Host = "127.0.0.1"
	bound.Role = RoleConnect
	ln.Close()
	c, err := RawDial(bound)
	if err != nil {
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatal(err)
		}
		return
	}
	defer c.Close()
	waitFD(t, c, unix.POLLOUT)
	if err := c.ConnectResult(); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("connect to a closed port: %v, want ECONNREFUSED", err)
	}
}

// TestDetachModes runs a blocking and a spinning echo over TCP and UNIX:
// the FDs the blocking and spin I/O models use.
func TestDetachModes(t *testing.T) {
	for _, mode := range []Mode{Blocking, Spin} {
		for _, network := range []string{"tcp", "unix"} {
			t.Run(mode.String()+"/"+network, func(t *testing.T) {
				spec := "tcp::0"
				if network == "unix" {
					spec = "unix:" + filepath.Join(t.TempDir(), "d.sock")
				}
				ln, err := Listen(context.Background(), mustParse(t, spec))
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				done := make(chan error, 1)
				go func() {
					c, err := ln.Accept()
					if err != nil {
						done <- err
						return
					}
					f, err := Detach(c, mode)
					if err != nil {
						done <- err
						return
					}
					defer f.Close()
					buf := make([]byte, 256)
					for {
						n, err := f.Read(buf)
						if err == io.EOF {
							done <- nil
							return
						}
						if err != nil {
							done <- err
							return
						}
						if _, err := f.Write(buf[:n]); err != nil {
							done <- err
							return
						}
					}
				}()
				c, err := DialFD(context.Background(), ln.Spec().FromNet(ln.Addr()), mode)
				if err != nil {
					t.Fatal(err)
				}
				if c.Mode() != mode {
					t.Fatalf("mode %v, want %v", c.Mode(), mode)
				}
				msg := bytes.Repeat([]byte("x"), 64)
				got := make([]byte, 64)
				for i := 0; i < 100; i++ {
					msg[0] = byte(i)
					if _, err := c.Write(msg); err != nil {
						t.Fatal(err)
					}
					if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
						t.Fatalf("round trip %d: %v", i, err)
					}
				}
				if network == "tcp" {
					ti, err := c.TCPInfo()
					if err != nil || ti.RTT <= 0 {
						t.Errorf("TCP_INFO: %+v %v, want a positive rtt", ti, err)
					}
				}
				c.Shutdown(ShutWrite)
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				c.Close()
				c.Close() // idempotent
			})
		}
	}
}

// TestInterrupt wakes a reader blocked in the kernel on another thread.
func TestInterrupt(t *testing.T) {
	for _, mode := range []Mode{Blocking, Spin} {
		_, c, _ := pair(t, "tcp::0", "tcp::1")
		f, err := Detach(c, mode)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := f.Read(make([]byte, 1))
			done <- err
		}()
		f.Interrupt()
		if err := <-done; err == nil {
			t.Fatalf("%v read returned no error after Interrupt", mode)
		}
		f.Close()
	}
}

func TestReadTCPInfo(t *testing.T) {
	_, c, _ := pair(t, "tcp::0", "tcp::1")
	ti, err := ReadTCPInfo(c.(*net.TCPConn))
	if err != nil {
		t.Fatal(err)
	}
	if ti.RTT <= 0 || ti.Unacked != 0 {
		t.Errorf("TCP_INFO on an idle loopback connection: %+v", ti)
	}
}

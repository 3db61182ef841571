package relay

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/sockets"
)

// TestStopAcceptingOrder is the shutdown order of every engine whose
// threads watch the listener in their own epoll sets, the event loops and
// the sockmap engine's thread: when Serve's context ends, every thread
// answers the stop and takes the listener out of its set while the
// listener is still open (so none can accept4 on its number once the
// kernel gives it to something else), only then is the listener closed
// (a connection that reached the backlog meanwhile is never accepted), and
// a connection accepted before goes on until it ends, when Serve returns.
func TestStopAcceptingOrder(t *testing.T) {
	for _, cfg := range []Config{{Engine: EngineEpoll, Workers: 2}, {Engine: EngineSplice}, {Engine: EngineSockmap}} {
		t.Run(string(cfg.Engine), func(t *testing.T) {
			if cfg.Engine == EngineSockmap {
				if err := CheckSockmap(); err != nil {
					peer.Unavailable(t, err.Error())
				}
			}
			testStopAcceptingOrder(t, cfg)
		})
	}
}

func testStopAcceptingOrder(t *testing.T, cfg Config) {
	up, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	go func() {
		c, err := up.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	upAddr := sockets.Addr{Network: "tcp4", Role: sockets.RoleConnect, Host: "127.0.0.1", Port: up.Addr().(*net.TCPAddr).Port}
	r, err := New(sockets.Addr{Network: "tcp4", Role: sockets.RoleListen, Host: "127.0.0.1"}, upAddr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var epfds []int
	var gates []*acceptGate
	var listener *sockets.FD
	switch e := r.eng.(type) {
	case *loopEngine:
		listener = e.ln
		for _, l := range e.loops {
			epfds, gates = append(epfds, l.epfd), append(gates, &l.acceptGate)
		}
	case *sockmapEngine:
		listener = e.ln
		epfds, gates = []int{e.epfd}, []*acceptGate{&e.acceptGate}
	default:
		t.Fatalf("engine %s: %T has no accept gate", cfg.Engine, r.eng)
	}

	addr := net.JoinHostPort(r.Addr().Host, strconv.Itoa(r.Addr().Port))
	closing := make(chan []string, 1)
	late := make(chan net.Conn, 1)
	hook := func(ln *sockets.FD) {
		if ln != listener {
			return // a relay of an earlier test, still shutting down
		}
		var wrong []string
		if _, err := unix.FcntlInt(uintptr(ln.Sysfd()), unix.F_GETFD, 0); err != nil {
			wrong = append(wrong, "the listener was closed before every thread had answered: "+err.Error())
		}
		for i, g := range gates {
			select {
			case <-g.stopped:
			default:
				wrong = append(wrong, "a thread had not answered the stop")
			}
			// EPOLL_CTL_MOD of a descriptor not in the set is ENOENT.
			ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: idListener}
			if err := unix.EpollCtl(epfds[i], unix.EPOLL_CTL_MOD, ln.Sysfd(), &ev); !errors.Is(err, unix.ENOENT) {
				wrong = append(wrong, "the listener is still in a thread's epoll set")
			}
		}
		// A connection the kernel completes now waits in the backlog:
		// no thread may accept it, and closing the listener resets it.
		if lc, err := net.Dial("tcp4", addr); err != nil {
			wrong = append(wrong, "dial the listener before it closes: "+err.Error())
		} else {
			late <- lc
		}
		closing <- wrong
	}
	testHookStopAccepting.Store(&hook)
	defer testHookStopAccepting.Store(nil)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Serve(ctx) }()
	served := false
	defer func() {
		// Serve reads the hook: it must have returned before the hook goes.
		cancel()
		r.Close()
		if !served {
			<-done
		}
	}()
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	echo := func(b string) {
		t.Helper()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(b))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != b {
			t.Fatalf("echo %q: %q, %v", b, got, err)
		}
	}
	echo("before")
	cancel()
	select {
	case wrong := <-closing:
		for _, w := range wrong {
			t.Error(w)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the listener was not closed within 10 s of the stop")
	}
	select {
	case lc := <-late:
		defer lc.Close()
		lc.SetDeadline(time.Now().Add(10 * time.Second))
		lc.Write([]byte("late"))
		if b, err := io.ReadAll(lc); len(b) > 0 || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("a connection made after the stop was relayed: %q, %v", b, err)
		}
	default:
	}
	echo("after")
	select {
	case err := <-done:
		served = true
		t.Fatalf("Serve returned with a connection live: %v", err)
	default:
	}
	c.Close()
	select {
	case err := <-done:
		served = true
		if err != nil {
			t.Fatal(err)
		}
		if n := r.Stats().Connections.Accepted; n != 1 {
			t.Errorf("%d connections accepted, want the one made before the stop", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return once its last connection ended")
	}
}

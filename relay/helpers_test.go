package relay_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

// variant is one engine configuration the shared semantics suite runs on.
type variant struct {
	name string
	cfg  relay.Config
}

var variants = []variant{
	{"goroutine", relay.Config{Engine: relay.EngineGoroutine}},
	{"goroutine-timed", relay.Config{Engine: relay.EngineGoroutine, Stats: true}},
	{"epoll", relay.Config{Engine: relay.EngineEpoll, Stats: true}},
	{"epoll-untimed", relay.Config{Engine: relay.EngineEpoll}},
	{"epoll-nobatch", relay.Config{Engine: relay.EngineEpoll, NoBatch: true}},
	{"splice", relay.Config{Engine: relay.EngineSplice, Stats: true}},
	{"epoll-spin", relay.Config{Engine: relay.EngineEpoll, Spin: true}},
	{"epoll-busy-poll", relay.Config{Engine: relay.EngineEpoll, BusyPoll: 50 * time.Microsecond}},
	{"epoll-wake-sleep", relay.Config{Engine: relay.EngineEpoll, Wake: relay.WakeSleep}},
	{"splice-wake-adaptive", relay.Config{Engine: relay.EngineSplice, Wake: relay.WakeAdaptive}},
	{"epoll-lock-conn", relay.Config{Engine: relay.EngineEpoll, Workers: 2, Lock: relay.LockConn}},
	{"splice-lock-global", relay.Config{Engine: relay.EngineSplice, Workers: 2, Lock: relay.LockGlobal, Buffer: 4096}},
	{"sockmap", relay.Config{Engine: relay.EngineSockmap}},
}

// legs are the client-side and upstream-side transports.
var legs = []struct{ client, upstream string }{
	{"tcp", "tcp"}, {"unix", "tcp"}, {"tcp", "unix"}, {"unix", "unix"},
}

// listenAddr is a fresh listen address: port 0 or a temp-dir UNIX path.
func listenAddr(t testing.TB, network string) sockets.Addr {
	t.Helper()
	if network == "unix" {
		return sockets.Addr{Network: "unix", Role: sockets.RoleListen, Path: filepath.Join(shortTempDir(t), "s.sock")}
	}
	return sockets.Addr{Network: "tcp4", Role: sockets.RoleListen, Host: "127.0.0.1"}
}

// shortTempDir keeps UNIX paths under sun_path's 108 bytes, which
// t.TempDir's long names can exceed.
func shortTempDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "rl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// upstream is an in-process server on loopback: each connection is
// handed to serve, and Close waits for every handler.
type upstream struct {
	ln    *sockets.Listener
	addr  sockets.Addr
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func startUpstream(t testing.TB, network string, serve func(net.Conn)) *upstream {
	t.Helper()
	ln, err := sockets.Listen(context.Background(), listenAddr(t, network))
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{ln: ln, addr: ln.Spec().FromNet(ln.Addr()), conns: map[net.Conn]struct{}{}}
	u.addr.Opts = sockets.Options{}
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.mu.Lock()
			u.conns[c] = struct{}{}
			u.mu.Unlock()
			u.wg.Add(1)
			go func() {
				defer u.wg.Done()
				defer func() {
					u.mu.Lock()
					delete(u.conns, c)
					u.mu.Unlock()
					c.Close()
				}()
				serve(c)
			}()
		}
	}()
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) Close() {
	u.ln.Close()
	u.mu.Lock()
	for c := range u.conns {
		c.Close()
	}
	u.mu.Unlock()
	u.wg.Wait()
}

// echo copies back what it reads and passes the half-close on.
func echo(c net.Conn) {
	io.Copy(c, c)
	c.(interface{ CloseWrite() error }).CloseWrite()
}

// logBuf collects a relay's log lines.
type logBuf struct {
	mu    sync.Mutex
	lines []string
	added chan struct{}
}

func newLogBuf() *logBuf { return &logBuf{added: make(chan struct{}, 1000)} }

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
	select {
	case l.added <- struct{}{}:
	default:
	}
}

// all is every line logged so far.
func (l *logBuf) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// waitFor waits for a log line containing all of want.
func (l *logBuf) waitFor(t testing.TB, want ...string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		for _, line := range l.lines {
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(line, w)
			}
			if ok {
				l.mu.Unlock()
				return line
			}
		}
		l.mu.Unlock()
		select {
		case <-l.added:
		case <-deadline:
			t.Fatalf("no log line with %q; have %q", want, l.lines)
		}
	}
}

// running is a relay being served by a goroutine the test owns.
type running struct {
	*relay.Relay
	cancel context.CancelFunc
	done   chan error
	log    *logBuf
}

func startRelay(t testing.TB, cfg relay.Config, listenNet string, up sockets.Addr) *running {
	t.Helper()
	lb := newLogBuf()
	cfg.Logf = lb.logf
	r, err := relay.New(listenAddr(t, listenNet), up, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rr := serveRelay(t, r)
	rr.log = lb
	return rr
}

// serveRelay runs Serve on a goroutine the test owns until cleanup.
func serveRelay(t testing.TB, r *relay.Relay) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rr := &running{Relay: r, cancel: cancel, done: make(chan error, 1), log: newLogBuf()}
	go func() { rr.done <- r.Serve(ctx) }()
	t.Cleanup(func() { rr.stop(t) })
	return rr
}

// stop closes the relay and waits for Serve; safe to call twice.
func (rr *running) stop(t testing.TB) {
	t.Helper()
	rr.Close()
	if rr.done == nil {
		return
	}
	select {
	case err := <-rr.done:
		// ErrClosed: Close came before the goroutine reached Serve.
		if err != nil && !errors.Is(err, relay.ErrClosed) {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after Close")
	}
	rr.done = nil
	rr.cancel()
}

// end stops Serve through its context, as hoprelay's signals do: live
// connections get Config.Grace to finish. Then stop has nothing to do.
func (rr *running) end(t testing.TB) {
	t.Helper()
	rr.cancel()
	select {
	case err := <-rr.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	rr.done = nil
}

func dial(t testing.TB, a sockets.Addr) net.Conn {
	t.Helper()
	c, err := sockets.Dial(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readAllDeadline reads to EOF or error within d.
func readAllDeadline(c net.Conn, d time.Duration) ([]byte, error) {
	c.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return b, err
	}
	return b, err
}

// echoMessages is an upstream that echoes size-byte messages one at a time
// through a fixed buffer: it allocates nothing per message, for the tests
// that count the process's allocations.
func echoMessages(size int) func(net.Conn) {
	return func(c net.Conn) {
		buf := make([]byte, size)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}
}

func closeWrite(t testing.TB, c net.Conn) {
	t.Helper()
	if err := c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatal(err)
	}
}

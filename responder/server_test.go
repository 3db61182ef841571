package responder_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/pingpong/echo"
	"github.com/hoplat/hoplat/responder"
	respecho "github.com/hoplat/hoplat/responder/echo"
	"github.com/hoplat/hoplat/responder/mock"
	"github.com/hoplat/hoplat/sockets"
)

// emfileChild, when set in the environment, makes TestServerAcceptRecoversFromEMFILE
// the responder: a process of its own whose RLIMIT_NOFILE can be lowered
// without starving the test's own connections.
const emfileChild = "HOPLAT_TEST_EMFILE_CHILD"

// TestServerAcceptRecoversFromEMFILE: under a low RLIMIT_NOFILE, more
// connections than fds make accept fail with EMFILE; once they close, a new
// connection is served (a MySQL greeting arrives), and the log says so
// once, not once per retry.
func TestServerAcceptRecoversFromEMFILE(t *testing.T) {
	if os.Getenv(emfileChild) != "" {
		emfileResponder(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerAcceptRecoversFromEMFILE$", "-test.count=1")
	cmd.Env = append(os.Environ(), emfileChild+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				addrs <- a
			}
		}
		close(addrs)
	}()
	emfile := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "too many open files") {
				emfile <- sc.Text()
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrs:
	case <-time.After(30 * time.Second):
		t.Fatal("child responder never listened")
	}
	if addr == "" {
		t.Fatal("child responder exited before listening")
	}
	// 80 connections against a limit of 64: the kernel completes them
	// all (the backlog), the responder runs out of fds accepting them.
	var conns []net.Conn
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
		conns = nil
	}
	defer closeAll()
	deadline := time.After(30 * time.Second)
	for hit := false; !hit; {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", len(conns), err)
		}
		conns = append(conns, c)
		if len(conns) < 80 {
			continue
		}
		select {
		case <-emfile:
			hit = true
		case <-deadline:
			t.Fatalf("%d connections and no EMFILE logged by a responder limited to 64 fds", len(conns))
		default:
			if len(conns) > 400 {
				select {
				case <-emfile:
					hit = true
				case <-deadline:
					t.Fatal("no EMFILE logged")
				}
			}
		}
	}
	// While the fds stay short, accept retries (5, 10, 20, 40, 80, 160
	// ms...) and says nothing more: nothing may arrive in 400 ms.
	select {
	case line := <-emfile:
		t.Fatalf("EMFILE logged again during the same shortage: %q", line)
	case <-time.After(400 * time.Millisecond):
	}
	closeAll()
	// The responder must serve again: the greeting of a new connection.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	var hdr [5]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil || hdr[4] != 10 {
		t.Fatalf("no greeting after the fds came back: % x, %v", hdr, err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child responder: %v", err)
	}
}

// emfileResponder serves MySQL greetings under RLIMIT_NOFILE 64 until its
// stdin closes.
func emfileResponder(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	srv, err := mock.NewServer(mock.ServerConfig{ConnectTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := sockets.Parse("tcp:127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &responder.Server{
		Listen:   []sockets.Addr{a},
		Handler:  mock.Handler{Server: srv},
		ErrorLog: func(err error) { fmt.Fprintln(os.Stderr, err) },
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	fmt.Println("listening", s.Addrs()[0].NetAddr())
	io.Copy(io.Discard, os.Stdin)
	s.Close()
}

// TestServerAutoBeyondHeld serves more connections at once than Auto may
// hold blocking (the bound lowered for the test): the one beyond is served
// over the netpoller, and every connection still round-trips.
func TestServerAutoBeyondHeld(t *testing.T) {
	ta, _ := sockets.Parse("tcp:127.0.0.1:0")
	srv := &responder.Server{Listen: []sockets.Addr{ta}, IO: iomodel.Auto, Handler: respecho.Handler{}, ErrorLog: func(err error) { t.Log(err) }}
	srv.SetAutoHeldMax(1)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rep, err := pingpong.Run(context.Background(), pingpong.Config{
		Target: srv.Addrs()[0], Protocol: echo.Protocol{}, IO: pingpong.Auto, Threads: []int{3}, Time: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Results()[0]
	if s.Transactions == 0 || s.Errors != 0 {
		t.Fatalf("%d round trips, %d errors %v", s.Transactions, s.Errors, s.ErrorSamples)
	}
	srv.Close() // waits for every connection's goroutine
	if held, served := srv.AutoCounts(); served[iomodel.Blocking] != 1 || served[iomodel.Netpoll] != 2 || held != 0 {
		t.Errorf("auto served %v, %d held after the run: want 1 blocking, 2 netpoll, 0 held", served, held)
	}
}

func TestParseServiceMode(t *testing.T) {
	for _, s := range []string{"busy", "sleep"} {
		m, err := responder.ParseServiceMode(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseServiceMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := responder.ParseServiceMode("yield"); err == nil {
		t.Error("ParseServiceMode(yield) succeeded")
	}
}

func TestSpend(t *testing.T) {
	for _, m := range []responder.ServiceMode{responder.Busy, responder.Sleep} {
		start := time.Now()
		responder.Service{Time: 2 * time.Millisecond, Mode: m}.Spend()
		// A lower bound on a spend the test sets: busy-waiting on the
		// clock or sleeping, neither returns early on any machine.
		if d := time.Since(start); d < 2*time.Millisecond {
			t.Errorf("%s: spent %v, want at least 2ms", m, d)
		}
	}
}

package mariadbtest

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := StopShared(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		code = 1
	}
	os.Exit(code)
}

func TestSharedServerServesSysbenchTable(t *testing.T) {
	s := Shared(t)
	if err := s.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, via := range [][]string{{"-h127.0.0.1", "-P" + strings.Split(s.Addr, ":")[1]}, {"--socket=" + s.Socket}} {
		args := append([]string{"--no-defaults", "-u" + s.User, "-p" + s.Password, "-N", "-e", "SELECT COUNT(*) FROM sbtest1", s.DB}, via...)
		out, err := exec.Command("mariadb", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("mariadb %v: %v\n%s", via, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != "10000" {
			t.Fatalf("rows in sbtest1 via %v = %q, want 10000", via, got)
		}
	}
	if syscall.Kill(s.PID, 0) != nil {
		t.Fatalf("PID %d is not alive", s.PID)
	}
}

// A server outlives the thread its caller ran on. Pdeathsig is the
// forking thread's, and a goroutine that ends with its thread locked (as
// a relay's loop does) ends that thread: before the server was forked
// from a thread of its own, it got SIGTERM then, and the relay tests'
// shared server was gone between two tests.
func TestServerOutlivesTheCallersThread(t *testing.T) {
	for _, p := range programs {
		peer.Require(t, p)
	}
	var s *Server
	var err error
	onEndingThread(func() { s, err = Launch(Options{TableSize: 10}) })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// A server sent SIGTERM shuts down within a second here; one that
	// was not keeps serving.
	select {
	case <-s.done:
		t.Fatalf("mariadbd exited after its caller's thread ended: %v\n%s", s.err, s.logTail())
	case <-time.After(time.Second):
	}
	if err := s.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// onEndingThread runs f on a locked thread that ends when f returns: not
// the main thread, which the runtime never ends (a goroutine locked there
// holds it while another tries again).
func onEndingThread(f func()) {
	done := make(chan struct{})
	var start func()
	start = func() {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
			if syscall.Gettid() == os.Getpid() {
				start()
				<-done
				return
			}
			f()
			close(done)
		}()
	}
	start()
	<-done
}

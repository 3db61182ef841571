package sockets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rawPair connects a Blocking or Nonblocking FD (client) to an accepted one
// (server) over TCP loopback.
func rawPair(t *testing.T, m Mode) (client, server *FD) {
	t.Helper()
	ln, bound, err := RawListen(mustParse(t, "TCP4-LISTEN:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	bound.Role = RoleConnect
	bound.Host = "127.0.0.1"
	d, err := NewRawDialer(bound)
	if err != nil {
		t.Fatal(err)
	}
	client, err = d.Copy().Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	waitFD(t, client, unix.POLLOUT)
	if err := client.ConnectResult(); err != nil {
		t.Fatal(err)
	}
	waitFD(t, ln, unix.POLLIN)
	if server, err = ln.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	if m != Nonblocking {
		for _, f := range []*FD{client, server} {
			if err := f.SetMode(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return client, server
}

func TestNonblockReadWrite(t *testing.T) {
	c, s := rawPair(t, Nonblocking)
	buf := make([]byte, 16)
	if _, err := s.ReadNonblock(buf); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("read of an empty socket: %v, want ErrWouldBlock", err)
	}
	if n, err := c.WriteNonblock([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	waitFD(t, s, unix.POLLIN)
	if n, err := s.ReadNonblock(buf); err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read: %q, %v", buf[:n], err)
	}
	c.Shutdown(ShutWrite)
	waitFD(t, s, unix.POLLIN)
	if _, err := s.ReadNonblock(buf); err != io.EOF {
		t.Fatalf("read after the peer's FIN: %v, want io.EOF", err)
	}
	// A full socket: the count so far and ErrWouldBlock.
	big := make([]byte, 64<<20)
	n, err := s.WriteNonblock(big)
	if !errors.Is(err, ErrWouldBlock) || n == 0 || n == len(big) {
		t.Fatalf("write to a full socket: %d of %d, %v", n, len(big), err)
	}
}

// TestHeldWaitsLetTheWorldStop: a goroutine asleep in a raw read or a raw
// epoll_wait keeps its P, so a stop-the-world (runtime.GC) completes only
// if the preemption signal ends the wait and the helper yields. Without the
// yield, GC would wait for the read, which the test answers only after GC.
func TestHeldWaitsLetTheWorldStop(t *testing.T) {
	c, s := rawPair(t, Blocking)
	if err := c.SetHeld(); err != nil {
		t.Fatal(err)
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(epfd)
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(efd)
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN}); err != nil {
		t.Fatal(err)
	}

	read := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		read <- holding(func() error {
			buf := make([]byte, 4)
			_, err := io.ReadFull(heldReader{c}, buf)
			if err == nil && string(buf) != "ping" {
				err = errors.New("read " + string(buf))
			}
			return err
		})
	}()
	go func() {
		waited <- holding(func() error {
			ev := make([]unix.EpollEvent, 1)
			for {
				n, err := EpollWait(epfd, ev, -1)
				if err == ErrInterrupted {
					continue
				}
				if err != nil || n > 0 {
					return err
				}
			}
		})
	}()
	gcDone := make(chan struct{})
	go func() { runtime.GC(); close(gcDone) }()
	select {
	case <-gcDone:
	case <-time.After(20 * time.Second):
		t.Fatal("runtime.GC did not complete while goroutines slept in raw system calls")
	}
	if _, err := s.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	unix.Write(efd, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	for _, ch := range []chan error{read, waited} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	// Interrupt ends a held read with EOF.
	go func() {
		_, err := c.ReadHeld(make([]byte, 1))
		read <- err
	}()
	c.Interrupt()
	if err := <-read; err != io.EOF {
		t.Fatalf("held read after Interrupt: %v, want io.EOF", err)
	}
}

type heldReader struct{ *FD }

// holding runs f with a P held and gives its error once the P is released,
// so that a test receiving it knows the goroutine holds none (TestHoldP
// counts them).
func holding(f func() error) error {
	release := HoldP()
	err := f()
	release()
	return err
}

func (r heldReader) Read(p []byte) (int, error) { return r.ReadHeld(p) }

func TestHoldP(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	r1 := HoldP()
	r2 := HoldP()
	if got := runtime.GOMAXPROCS(0); got < procs.base+2 {
		t.Fatalf("GOMAXPROCS %d with two Ps held over base %d", got, procs.base)
	}
	if !SpareP() {
		t.Fatal("SpareP false with a P reserved for the rest")
	}
	r1()
	r1() // idempotent
	r2()
	if h := procs.held.Load(); h != 0 {
		t.Fatalf("%d Ps still held after release", h)
	}
	runtime.GOMAXPROCS(1)
	release := HoldP()
	runtime.GOMAXPROCS(1) // as testing.AllocsPerRun does
	if SpareP() {
		t.Fatal("SpareP true with GOMAXPROCS 1 and one P held")
	}
	release()
}

func TestRawDialerRefused(t *testing.T) {
	ln, bound, err := RawListen(mustParse(t, "TCP4-LISTEN:0"))
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // nothing listens on bound now
	bound.Role = RoleConnect
	bound.Host = "127.0.0.1"
	d, err := NewRawDialer(bound)
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.Dial()
	if err != nil {
		return // refused at once: fine
	}
	defer f.Close()
	waitFD(t, f, unix.POLLOUT)
	if err := f.ConnectResult(); !errors.Is(err, unix.ECONNREFUSED) {
		t.Fatalf("connect to a closed port: %v, want ECONNREFUSED", err)
	}
	if _, err := NewRawDialer(mustParse(t, "TCP4-LISTEN:0")); err == nil {
		t.Fatal("NewRawDialer accepted a listen address")
	}
}

// TestHeldFallsBackWhenProcsDrop: held FDs compare GOMAXPROCS as last seen
// (seenProcs), not as it is. When it drops so that the holders would take
// every P (testing.AllocsPerRun sets it to 1), a holder asleep in a raw call
// would keep the only P from its peer until sysmon preempts it, 10 ms per
// message; the interrupted wait must refresh the value and move both ends
// to scheduler-visible calls. 200 round trips take well under a second that
// way, and 4 s or more without: the test holds them to 2 s.
func TestHeldFallsBackWhenProcsDrop(t *testing.T) {
	c, s := rawPair(t, Blocking)
	for _, f := range []*FD{c, s} {
		if err := f.SetHeld(); err != nil {
			t.Fatal(err)
		}
	}
	const rounds = 200
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	// Both ends hold a P and have made a raw round trip before the drop, so
	// that seenProcs is stale-high when GOMAXPROCS falls to 1.
	start := make(chan struct{})
	echoed := make(chan error, 1)
	go func() {
		echoed <- holding(func() error {
			buf := make([]byte, 8)
			for i := 0; i <= rounds; i++ {
				if _, err := io.ReadFull(heldReader{s}, buf); err != nil {
					return err
				}
				if _, err := s.WriteHeld(buf); err != nil {
					return err
				}
			}
			return nil
		})
	}()
	done := make(chan error, 1)
	go func() {
		done <- holding(func() error {
			msg, buf := []byte("12345678"), make([]byte, 8)
			roundTrip := func() error {
				if _, err := c.WriteHeld(msg); err != nil {
					return err
				}
				_, err := io.ReadFull(heldReader{c}, buf)
				return err
			}
			if err := roundTrip(); err != nil {
				return err
			}
			<-start
			for i := 0; i < rounds; i++ {
				if err := roundTrip(); err != nil {
					return err
				}
			}
			return nil
		})
	}()
	// Wait until both hold their Ps (HoldP raised GOMAXPROCS), then drop it.
	for procs.held.Load() < 2 {
		runtime.Gosched()
	}
	runtime.GOMAXPROCS(1)
	t0 := time.Now()
	close(start)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("round trips did not complete")
	}
	// The bound is the mechanism's, not the machine's: without the fall
	// back every message waits for sysmon's forced preemption, 10 ms by
	// the runtime's constant (forcePreemptNS), so the bound is half of
	// that per message. With it, a message costs a wake-up, which even a
	// busy loop on every CPU keeps within a scheduler slice, a few ms.
	if el, bound := time.Since(t0), 2*rounds*5*time.Millisecond; el > bound {
		t.Fatalf("%d round trips with GOMAXPROCS 1 and both ends held took %v (bound %v): the holders did not fall back to scheduler-visible calls", rounds, el, bound)
	}
	if err := <-echoed; err != nil {
		t.Fatal(err)
	}
}

// TestSockcall: the stub passes each argument where the kernel reads it
// (flags included: MSG_PEEK leaves the bytes queued) and returns the
// kernel's errno for a bad descriptor.
func TestSockcall(t *testing.T) {
	c, s := rawPair(t, Blocking)
	if n, e := rawSock(unix.SYS_SENDTO, c.Sysfd(), []byte("abc"), unix.MSG_NOSIGNAL); n != 3 || e != 0 {
		t.Fatalf("sendto: %d, %v", n, e)
	}
	buf := make([]byte, 8)
	if n, e := rawSock(unix.SYS_RECVFROM, s.Sysfd(), buf, unix.MSG_PEEK); n != 3 || e != 0 || string(buf[:n]) != "abc" {
		t.Fatalf("recvfrom MSG_PEEK: %d %q, %v", n, buf[:n], e)
	}
	if n, e := rawSock(unix.SYS_RECVFROM, s.Sysfd(), buf[:2], 0); n != 2 || e != 0 || string(buf[:n]) != "ab" {
		t.Fatalf("recvfrom of 2: %d %q, %v", n, buf[:n], e)
	}
	if n, e := rawSock(unix.SYS_RECVFROM, s.Sysfd(), buf, 0); n != 1 || e != 0 || buf[0] != 'c' {
		t.Fatalf("recvfrom of the rest: %d %q, %v", n, buf[:n], e)
	}
	if n, e := rawSock(unix.SYS_RECVFROM, -1, buf, 0); n != -1 || e != unix.EBADF {
		t.Fatalf("recvfrom on fd -1: %d, %v; want -1, EBADF", n, e)
	}
}

// A held read asleep on a UNIX stream is not woken each time its peer
// reads what it sent: the peer's read frees the reader's send buffer and
// wakes every waiter on its socket (unix_write_space), and a reader asleep
// in recvfrom(2) itself would run for nothing and sleep again each time.
// The reader's thread counts its voluntary context switches (each sleep is
// one) while the peer drains 20 messages one by one, each once the reader
// is asleep, then answers.
func TestHeldUNIXReadSleepsThroughPeersReads(t *testing.T) {
	a, b, err := SocketPair(Blocking)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer b.Close()
	if err := a.SetHeld(); err != nil {
		t.Fatal(err)
	}
	const messages = 20
	for range messages {
		if _, err := a.WriteHeld([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	tid := make(chan int, 1)
	done := make(chan error, 1)
	var switches [2]int
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		release := HoldP()
		defer release()
		me := unix.Gettid()
		switches[0] = voluntarySwitches(t, me)
		tid <- me
		buf := make([]byte, 8)
		_, err := a.ReadHeld(buf)
		switches[1] = voluntarySwitches(t, me)
		done <- err
	}()
	me := <-tid
	deadline := time.Now().Add(10 * time.Second)
	asleep := func() {
		for threadState(t, me) != 'S' {
			if time.Now().After(deadline) {
				t.Fatal("the reader's thread never slept")
			}
			runtime.Gosched()
		}
	}
	// The reader is asleep once its thread's state says so.
	asleep()
	one := make([]byte, 1)
	for range messages {
		if _, err := b.Read(one); err != nil {
			t.Fatal(err)
		}
		// Woken or not, the reader is asleep again before the next.
		asleep()
	}
	if _, err := b.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// One sleep, and a few more for the runtime's own doings on a loaded
	// machine (4 were seen beside a concurrent build); the wake-ups for
	// room would add one per message read, messages in all.
	if n := switches[1] - switches[0]; n > messages/2 {
		t.Errorf("the reader's thread slept %d times while its peer read %d messages, want 1", n, messages)
	}
}

// voluntarySwitches reads a thread's voluntary_ctxt_switches.
func voluntarySwitches(t *testing.T, tid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", tid))
	if err != nil {
		t.Error(err)
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Error(err)
			}
			return n
		}
	}
	t.Errorf("no voluntary_ctxt_switches in /proc/self/task/%d/status", tid)
	return 0
}

// threadState is the state letter of /proc/self/task/TID/stat.
func threadState(t *testing.T, tid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		t.Fatalf("stat %q", b)
	}
	return b[i+2]
}

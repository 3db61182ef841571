package sockets

import (
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// socketPair returns a connected pair of UNIX stream sockets as Blocking
// FDs, the second closed at the end of the test.
func socketPair(t testing.TB) (*FD, *FD) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	peer := &FD{fd: fds[1], mode: Blocking}
	t.Cleanup(func() { peer.Close() })
	return &FD{fd: fds[0], mode: Blocking}, peer
}

// isOpen asks the kernel whether descriptor fd is open (fcntl F_GETFD).
func isOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return !errors.Is(err, unix.EBADF)
}

// TestCloseInterruptRace runs Close, Interrupt and a blocked Read on three
// goroutines at once, many times: under -race an unsynchronised descriptor
// field is reported, and in any build the descriptor must end up closed
// exactly once and the reader woken.
func TestCloseInterruptRace(t *testing.T) {
	rounds := 500
	if testing.Short() {
		rounds = 50
	}
	for i := range rounds {
		f, peer := socketPair(t)
		fd := f.fd
		start := make(chan struct{})
		var wg sync.WaitGroup
		readErr := make(chan error, 1)
		closeErr := make(chan error, 1)
		wg.Add(3)
		go func() {
			defer wg.Done()
			<-start
			_, err := f.Read(make([]byte, 1))
			readErr <- err
		}()
		go func() {
			defer wg.Done()
			<-start
			f.Interrupt()
		}()
		go func() {
			defer wg.Done()
			<-start
			closeErr <- f.Close()
		}()
		close(start)
		all := make(chan struct{})
		go func() { wg.Wait(); close(all) }()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: Read, Interrupt and Close still running after 10s: a reader asleep on a closed descriptor", i)
		}
		if err := <-readErr; err != io.EOF && !errors.Is(err, ErrClosed) {
			t.Fatalf("round %d: read during Close and Interrupt: %v, want EOF or ErrClosed", i, err)
		}
		if err := <-closeErr; err != nil {
			t.Fatalf("round %d: Close: %v", i, err)
		}
		if isOpen(fd) {
			t.Fatalf("round %d: descriptor %d still open after Close and every operation returned", i, fd)
		}
		if f.Sysfd() != -1 {
			t.Fatalf("round %d: Sysfd after Close is %d, want -1", i, f.Sysfd())
		}
		if err := f.Close(); err != nil {
			t.Fatalf("round %d: second Close: %v", i, err)
		}
		peer.Close()
	}
}

// TestCloseWakesReader closes an FD while another thread sleeps in read(2)
// on it. close(2) alone would not wake that thread (close(2),
// "Multithreaded processes and close()"), and closing the number under it
// would let the kernel reuse it: Close shuts the socket down instead, and
// the reader's return closes the descriptor.
func TestCloseWakesReader(t *testing.T) {
	f, _ := socketPair(t)
	fd := f.fd
	done := make(chan error, 1)
	go func() {
		_, err := f.Read(make([]byte, 1))
		done <- err
	}()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != io.EOF && !errors.Is(err, ErrClosed) {
			t.Errorf("read woken by Close: %v, want EOF or ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not wake a reader blocked on another thread")
	}
	if isOpen(fd) {
		t.Errorf("descriptor %d open after Close and the reader returned", fd)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	if err := f.Shutdown(ShutWrite); !errors.Is(err, ErrClosed) {
		t.Errorf("Shutdown after Close: %v, want ErrClosed", err)
	}
}

// TestInterruptAfterCloseSparesReusedFD: once Close has freed the number,
// the kernel hands it to the next socket; a late Interrupt must not shut
// that stranger down.
func TestInterruptAfterCloseSparesReusedFD(t *testing.T) {
	f, _ := socketPair(t)
	fd := f.fd
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	a, b := socketPair(t) // the lowest free numbers: usually fd among them
	defer a.Close()
	if a.fd != fd && b.fd != fd {
		t.Logf("descriptor %d not reused (new pair %d, %d); checking the pair anyway", fd, a.fd, b.fd)
	}
	f.Interrupt()
	if _, err := a.Write([]byte("x")); err != nil {
		t.Fatalf("write on a socket created after Close, after a late Interrupt: %v", err)
	}
	got := make([]byte, 1)
	if _, err := b.Read(got); err != nil || got[0] != 'x' {
		t.Fatalf("read %q, %v", got, err)
	}
}

// The read and write paths take and release a hold without allocating.
func TestReadWriteAllocs(t *testing.T) {
	a, b := socketPair(t)
	defer a.Close()
	msg, got := []byte("ping"), make([]byte, 4)
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := a.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(b, got); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Write and Read allocate %v times per round trip, want 0", allocs)
	}
}

// BenchmarkHoldRelease is what the lifecycle adds to every Read and Write:
// one compare-and-swap and one atomic add, uncontended.
func BenchmarkHoldRelease(b *testing.B) {
	f, _ := socketPair(b)
	defer f.Close()
	for b.Loop() {
		if !f.hold() {
			b.Fatal("hold failed on an open FD")
		}
		f.release()
	}
}

// BenchmarkWriteRead is one byte written and read back through FD, to set
// the lifecycle's cost against the two syscalls; BenchmarkWriteReadRaw is
// the same with bare unix.Write and unix.Read.
func BenchmarkWriteRead(b *testing.B) {
	x, y := socketPair(b)
	defer x.Close()
	buf := []byte{0}
	for b.Loop() {
		if _, err := x.Write(buf); err != nil {
			b.Fatal(err)
		}
		if _, err := y.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteReadRaw(b *testing.B) {
	x, y := socketPair(b)
	defer x.Close()
	buf := []byte{0}
	for b.Loop() {
		if _, err := unix.Write(x.fd, buf); err != nil {
			b.Fatal(err)
		}
		if _, err := unix.Read(y.fd, buf); err != nil {
			b.Fatal(err)
		}
	}
}

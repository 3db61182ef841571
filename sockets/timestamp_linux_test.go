package sockets

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// connPair returns both ends of one loopback connection.
func connPair(t *testing.T, network, addr string) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- c
	}()
	client, err = net.Dial(network, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		client.Close()
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// fdPair is connPair detached into FDs in mode m.
func fdPair(t *testing.T, network, addr string, m Mode) (client, server *FD) {
	t.Helper()
	c, s := connPair(t, network, addr)
	cf, err := Detach(c, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cf.Close() })
	sf, err := Detach(s, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sf.Close() })
	return cf, sf
}

// spinFor busy-waits d on the clock: a delay between the kernel queueing
// data and the read, without sleeping (no scheduler in the figure).
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// checkStamp says whether ts lies between the send and the read, and that
// the data waited at least waited in the socket. Order and a lower bound
// the test sets (a spin of waited before the read), on any machine.
func checkStamp(t *testing.T, i int, sent, ts, read time.Time, waited time.Duration) {
	t.Helper()
	switch {
	case ts.IsZero():
		t.Fatalf("read %d: no receive timestamp", i)
	case ts.Before(sent):
		t.Fatalf("read %d: stamp %v is %v before the send", i, ts, sent.Sub(ts))
	case ts.After(read):
		t.Fatalf("read %d: stamp %v is %v after the read returned", i, ts, ts.Sub(read))
	case read.Sub(ts) < waited:
		t.Fatalf("read %d: stamp only %v before the read, but the data waited %v: not the queueing time", i, read.Sub(ts), waited)
	}
}

func TestReadStampedTCP(t *testing.T) {
	cf, sf := fdPair(t, "tcp4", "127.0.0.1:0", Blocking)
	if err := sf.EnableRXTimestamps(); err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 64)
	buf := make([]byte, 256)
	b := new(StampBuf)
	t.Run("queued", func(t *testing.T) {
		for i := range 20 {
			sent := time.Now()
			if _, err := cf.Write(msg); err != nil {
				t.Fatal(err)
			}
			spinFor(time.Millisecond)
			n, ts, err := sf.ReadStamped(buf, b)
			read := time.Now()
			if err != nil || n != len(msg) {
				t.Fatalf("read %d: n=%d err=%v", i, n, err)
			}
			checkStamp(t, i, sent, ts, read, time.Millisecond)
		}
	})
	t.Run("reader asleep", func(t *testing.T) {
		type result struct {
			n        int
			ts, read time.Time
			err      error
		}
		for i := range 20 {
			reading := make(chan struct{})
			got := make(chan result, 1)
			go func() {
				close(reading)
				n, ts, err := sf.ReadStamped(buf, b)
				got <- result{n, ts, time.Now(), err}
			}()
			<-reading
			sent := time.Now()
			if _, err := cf.Write(msg); err != nil {
				t.Fatal(err)
			}
			r := <-got
			if r.err != nil || r.n != len(msg) {
				t.Fatalf("read %d: n=%d err=%v", i, r.n, r.err)
			}
			checkStamp(t, i, sent, r.ts, r.read, 0)
		}
	})
	t.Run("eof", func(t *testing.T) {
		if err := cf.Shutdown(ShutWrite); err != nil {
			t.Fatal(err)
		}
		if n, _, err := sf.ReadStamped(buf, b); n != 0 || err == nil || err.Error() != "EOF" {
			t.Fatalf("after the peer's FIN: n=%d err=%v, want io.EOF", n, err)
		}
	})
}

func TestReadStampedNonblocking(t *testing.T) {
	cf, sf := fdPair(t, "tcp4", "127.0.0.1:0", Nonblocking)
	if err := sf.EnableRXTimestamps(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	var b StampBuf
	if _, _, err := sf.ReadStamped(buf, &b); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("empty socket: %v, want ErrWouldBlock", err)
	}
	sent := time.Now()
	if _, err := cf.Write(buf[:10]); err != nil {
		t.Fatal(err)
	}
	waitFD(t, sf, unix.POLLIN)
	n, ts, err := sf.ReadStamped(buf, &b)
	read := time.Now()
	if err != nil || n != 10 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	checkStamp(t, 0, sent, ts, read, 0)
}

// Data queued before timestamps were enabled carries no stamp, and says so
// with a zero time rather than a made-up one.
func TestReadStampedNotEnabled(t *testing.T) {
	cf, sf := fdPair(t, "tcp4", "127.0.0.1:0", Blocking)
	buf := make([]byte, 8)
	if _, err := cf.Write(buf); err != nil {
		t.Fatal(err)
	}
	n, ts, err := sf.ReadStamped(buf, new(StampBuf))
	if err != nil || n != len(buf) {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if !ts.IsZero() {
		t.Fatalf("stamp %v without SO_TIMESTAMPING", ts)
	}
}

func TestReadStampedAllocs(t *testing.T) {
	cf, sf := fdPair(t, "tcp4", "127.0.0.1:0", Blocking)
	if err := sf.EnableRXTimestamps(); err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 64)
	buf := make([]byte, 64)
	b := new(StampBuf)
	var stamped int
	allocs := testing.AllocsPerRun(500, func() {
		cf.Write(msg)
		if _, ts, err := sf.ReadStamped(buf, b); err == nil && !ts.IsZero() {
			stamped++
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per timestamped read, want 0", allocs)
	}
	if stamped != 501 {
		t.Fatalf("%d of 501 reads stamped", stamped)
	}
}

func TestStampedReaderConn(t *testing.T) {
	c, s := connPair(t, "tcp4", "127.0.0.1:0")
	r, err := NewStampedReader(s.(*net.TCPConn))
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 64)
	buf := make([]byte, 64)
	for i := range 10 {
		sent := time.Now()
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		n, ts, err := r.Read(buf)
		read := time.Now()
		if err != nil || n != len(msg) {
			t.Fatalf("read %d: n=%d err=%v", i, n, err)
		}
		checkStamp(t, i, sent, ts, read, 0)
	}
	allocs := testing.AllocsPerRun(500, func() {
		c.Write(msg)
		r.Read(buf)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per write and timestamped read, want 0", allocs)
	}
	s.SetReadDeadline(time.Now().Add(-time.Second))
	if _, _, err := r.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	s.SetReadDeadline(time.Time{})
	c.Close()
	if _, _, err := r.Read(buf); err == nil || err.Error() != "EOF" {
		t.Fatalf("after the peer closed: %v, want io.EOF", err)
	}
}

// UNIX stream sockets accept every timestamping option and never deliver a
// stamp: the kernel's behaviour, shown here, is why EnableRXTimestamps
// refuses them. A seqpacket pair, which does deliver one, shows that the
// check can see a stamp when there is one.
func TestUnixStreamNoRXTimestamps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ts.sock")
	cf, sf := fdPair(t, "unix", path, Blocking)
	err := sf.EnableRXTimestamps()
	if !errors.Is(err, ErrNoRXTimestamps) || !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("EnableRXTimestamps on a UNIX stream socket: %v, want ErrNoRXTimestamps", err)
	}
	c, s := connPair(t, "unix", filepath.Join(t.TempDir(), "ts2.sock"))
	if _, err := NewStampedReader(s.(*net.UnixConn)); !errors.Is(err, ErrNoRXTimestamps) {
		t.Fatalf("NewStampedReader on a UNIX stream conn: %v, want ErrNoRXTimestamps", err)
	}
	_ = c

	buf := make([]byte, 16)
	b := new(StampBuf)
	for _, opt := range []struct {
		name   string
		opt, v int
	}{
		{"SO_TIMESTAMPING", unix.SO_TIMESTAMPING, rxFlags},
		{"SO_TIMESTAMPNS", unix.SO_TIMESTAMPNS, 1},
		{"SO_TIMESTAMP", unix.SO_TIMESTAMP, 1},
	} {
		if err := unix.SetsockoptInt(sf.Sysfd(), unix.SOL_SOCKET, opt.opt, opt.v); err != nil {
			t.Fatalf("setsockopt %s: %v", opt.name, err)
		}
		if _, err := cf.Write(buf); err != nil {
			t.Fatal(err)
		}
		n, _, err := b.recv(sf.Sysfd(), buf, false)
		if err != nil || n != len(buf) {
			t.Fatalf("%s: n=%d err=%v", opt.name, n, err)
		}
		if cl := b.sys.msg.Controllen; cl != 0 {
			t.Fatalf("%s: UNIX stream read carried %d bytes of control messages", opt.name, cl)
		}
	}

	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	// AF_UNIX stamps at send time only for SOCK_RCVTSTAMP, which
	// SO_TIMESTAMPNS sets and SO_TIMESTAMPING does not.
	if err := unix.SetsockoptInt(fds[1], unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(fds[0], buf); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.recv(fds[1], buf, false); err != nil {
		t.Fatal(err)
	}
	if b.sys.msg.Controllen == 0 {
		t.Fatal("seqpacket read with SO_TIMESTAMPNS carried no control message: the check cannot see one")
	}
}

// stampMessage builds the control buffer the kernel writes for one
// SCM_TIMESTAMPING message with software stamp sec.nsec.
func stampMessage(level, typ int32, sec, nsec int64) []byte {
	b := make([]byte, unix.CmsgSpace(3*timespecSize))
	binary.NativeEndian.PutUint64(b, uint64(unix.CmsgLen(3*timespecSize)))
	if cmsgLenSize == 4 {
		binary.NativeEndian.PutUint32(b, uint32(unix.CmsgLen(3*timespecSize)))
	}
	binary.NativeEndian.PutUint32(b[cmsgLenSize:], uint32(level))
	binary.NativeEndian.PutUint32(b[cmsgLenSize+4:], uint32(typ))
	d := b[unix.SizeofCmsghdr:]
	if tsSecSize == 8 {
		binary.NativeEndian.PutUint64(d, uint64(sec))
		binary.NativeEndian.PutUint64(d[8:], uint64(nsec))
	} else {
		binary.NativeEndian.PutUint32(d, uint32(sec))
		binary.NativeEndian.PutUint32(d[4:], uint32(nsec))
	}
	return b
}

func TestParseRXStamp(t *testing.T) {
	want := time.Unix(1700000000, 123456789)
	one := stampMessage(unix.SOL_SOCKET, unix.SCM_TIMESTAMPING, want.Unix(), int64(want.Nanosecond()))
	other := stampMessage(unix.SOL_SOCKET, unix.SCM_RIGHTS, 5, 5)
	for _, c := range []struct {
		name string
		oob  []byte
		ok   bool
	}{
		{"alone", one, true},
		{"after another message", append(append([]byte{}, other...), one...), true},
		{"empty", nil, false},
		{"other message only", other, false},
		{"truncated", one[:len(one)-1], false},
		{"header only", one[:unix.SizeofCmsghdr], false},
		{"zero stamp", stampMessage(unix.SOL_SOCKET, unix.SCM_TIMESTAMPING, 0, 0), false},
		{"bad nsec", stampMessage(unix.SOL_SOCKET, unix.SCM_TIMESTAMPING, 1, 1e9), false},
		{"other level", stampMessage(unix.IPPROTO_IP, unix.SCM_TIMESTAMPING, 1, 1), false},
	} {
		got, ok := parseRXStamp(c.oob)
		if ok != c.ok || (ok && !got.Equal(want)) {
			t.Errorf("%s: %v %v, want %v %v", c.name, got, ok, want, c.ok)
		}
	}
}

func FuzzParseRXStamp(f *testing.F) {
	f.Add(stampMessage(unix.SOL_SOCKET, unix.SCM_TIMESTAMPING, 1700000000, 5))
	f.Add(append(stampMessage(unix.SOL_SOCKET, unix.SCM_RIGHTS, 1, 1), stampMessage(unix.SOL_SOCKET, unix.SCM_TIMESTAMPING, 3, 4)...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, oob []byte) {
		ts, ok := parseRXStamp(oob)
		if ok && (ts.IsZero() || ts.Nanosecond() < 0 || ts.Nanosecond() >= 1e9) {
			t.Fatalf("accepted stamp %v", ts)
		}
		if !ok && !ts.IsZero() {
			t.Fatalf("rejected with a stamp %v", ts)
		}
	})
}

// A held FD's stamped read sleeps in recvmsg with its P kept, stamps what
// it reads, allocates nothing, and ends at the peer's FIN.
func TestReadStampedHeld(t *testing.T) {
	cf, sf := fdPair(t, "tcp4", "127.0.0.1:0", Blocking)
	if err := sf.SetHeld(); err != nil {
		t.Fatal(err)
	}
	if err := sf.EnableRXTimestamps(); err != nil {
		t.Fatal(err)
	}
	release := HoldP()
	defer release()
	b := new(StampBuf)
	msg := make([]byte, 64)
	buf := make([]byte, 256)
	for i := range 20 {
		sent := time.Now()
		if _, err := cf.Write(msg); err != nil {
			t.Fatal(err)
		}
		n, ts, err := sf.ReadStampedHeld(buf, b)
		read := time.Now()
		if err != nil || n != len(msg) {
			t.Fatalf("read %d: n=%d err=%v", i, n, err)
		}
		checkStamp(t, i, sent, ts, read, 0)
	}
	var stamped int
	allocs := testing.AllocsPerRun(500, func() {
		cf.Write(msg)
		if _, ts, err := sf.ReadStampedHeld(buf, b); err == nil && !ts.IsZero() {
			stamped++
		}
	})
	if allocs != 0 || stamped != 501 {
		t.Fatalf("%v allocations per held stamped read, %d of 501 stamped; want 0 and all", allocs, stamped)
	}
	if n, _, err := sf.ReadStampedHeld(nil, b); n != 0 || err != nil {
		t.Fatalf("empty buffer: n=%d err=%v", n, err)
	}
	if err := cf.Shutdown(ShutWrite); err != nil {
		t.Fatal(err)
	}
	if n, _, err := sf.ReadStampedHeld(buf, b); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after the peer's FIN: n=%d err=%v, want io.EOF", n, err)
	}
	sf.Close()
	if _, _, err := sf.ReadStampedHeld(buf, b); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}

// Once KeepRXStamps has returned (TestMain holds one), the first byte of
// every fresh stamped socket is stamped, however many stamped sockets
// came and went before it: each of them would otherwise have switched
// stamping off at its close and on again, late, at the next one's ask.
func TestKeepRXStampsHoldsThemOn(t *testing.T) {
	for i := range 20 {
		cf, sf := fdPair(t, "tcp4", "127.0.0.1:0", Blocking)
		if err := sf.EnableRXTimestamps(); err != nil {
			t.Fatal(err)
		}
		buf := []byte{byte(i)}
		if _, err := cf.Write(buf); err != nil {
			t.Fatal(err)
		}
		if _, ts, err := sf.ReadStamped(buf, new(StampBuf)); err != nil || ts.IsZero() {
			t.Fatalf("socket %d: first read stamped %v, %v; want a stamp", i, ts, err)
		}
		cf.Close()
		sf.Close()
	}
}

// A keeper that cannot see a stamp before its context ends says so.
func TestKeepRXStampsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if k, err := KeepRXStamps(ctx); err == nil {
		k.Close()
		t.Fatal("KeepRXStamps with an ended context: no error")
	}
}

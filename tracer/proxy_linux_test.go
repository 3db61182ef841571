package tracer

import (
	"context"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// TestProxyHooks follows this process with ProxyHooks over one loopback
// exchange after a first: the receive and the send are recorded with their byte counts
// and sequence numbers, and the arrival on a socket already read carries
// the sequence number its receive reaches.
func TestProxyHooks(t *testing.T) {
	tr := openOrSkip(t, Config{Hooks: ProxyHooks, Components: map[int]string{os.Getpid(): "proxy"}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	buf := make([]byte, 100)
	roundTrip := func(n int) {
		t.Helper()
		if _, err := c.Write(buf[:n]); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(s, buf[:n]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	roundTrip(1) // enters the receiving socket in socks
	roundTrip(100)
	trace, err := tr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	var send, ready, recv *Event
	for i := range trace.Events {
		e := &trace.Events[i]
		if (e.Kind == KindSend || e.Kind == KindRecv) && e.Arg2 != 100 {
			continue
		}
		switch e.Kind {
		case KindSend:
			send = e
		case KindDataReady:
			ready = e
		case KindRecv:
			recv = e
		}
	}
	if send == nil || ready == nil || recv == nil {
		t.Fatalf("send %v, data_ready %v, recv %v among %d events", send, ready, recv, len(trace.Events))
	}
	if send.Arg2 != 100 || recv.Arg2 != 100 {
		t.Errorf("send of %d bytes, receive of %d, want 100 each", send.Arg2, recv.Arg2)
	}
	if ready.Arg != recv.Arg || ready.Tid2 != recv.Tid2 {
		t.Errorf("arrival on socket %#x up to seq %d, receive on %#x up to %d", ready.Arg, ready.Tid2, recv.Arg, recv.Tid2)
	}
	if l, r := recv.SockPorts(); l != port || r == 0 {
		t.Errorf("receiving socket's ports %d, %d; want local %d", l, r, port)
	}
	if l, r := send.SockPorts(); r != port || l == 0 {
		t.Errorf("sending socket's ports %d, %d; want remote %d", l, r, port)
	}
}

func TestProxyCalibrate(t *testing.T) {
	tr := openOrSkip(t, Config{Hooks: ProxyHooks})
	d, err := tr.Calibrate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("per event %v", d)
	// As TestCalibrate: a record costs a few hundred ns, and 20 µs is two
	// orders of magnitude above it on any machine.
	if d <= 0 || d > 20*time.Microsecond {
		t.Errorf("per-event cost %v", d)
	}
}

package sockets

import (
	"errors"
	"io"
	"testing"
)

func TestPipe(t *testing.T) {
	r, w, err := Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if r.Mode() != Blocking || w.Mode() != Blocking {
		t.Fatalf("modes %v %v, want blocking", r.Mode(), w.Mode())
	}
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	if n, err := r.Read(b); n != 1 || err != nil || b[0] != 'x' {
		t.Fatalf("read %d %q %v", n, b[:n], err)
	}
	w.Close()
	if _, err := r.Read(b); err != io.EOF {
		t.Fatalf("after the writer closed: %v, want io.EOF", err)
	}
}

func TestSocketPair(t *testing.T) {
	a, b, err := SocketPair(Nonblocking)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer b.Close()
	buf := make([]byte, 4)
	if _, err := b.Read(buf); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("empty nonblocking pair: %v, want ErrWouldBlock", err)
	}
	if _, err := a.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Read(buf); n != 4 || err != nil || string(buf) != "ping" {
		t.Fatalf("read %d %q %v", n, buf[:n], err)
	}
	if err := b.EnableRXTimestamps(); !errors.Is(err, ErrNoRXTimestamps) {
		t.Fatalf("EnableRXTimestamps on a socket pair: %v, want ErrNoRXTimestamps", err)
	}
	a.Shutdown(ShutWrite)
	if _, err := b.Read(buf); err != io.EOF {
		t.Fatalf("after shutdown: %v, want io.EOF", err)
	}
}

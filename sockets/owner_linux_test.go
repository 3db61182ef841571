package sockets

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/porttest"
)

func TestListenerPIDFindsThisProcess(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, a := range []Addr{
		{Network: "tcp", Host: "127.0.0.1", Port: port},
		{Network: "tcp", Host: "localhost", Port: port},
	} {
		pid, err := ListenerPID(a)
		if err != nil || pid != os.Getpid() {
			t.Errorf("ListenerPID(%s) = %d, %v; want %d", a, pid, err, os.Getpid())
		}
	}

	path := filepath.Join(t.TempDir(), "s.sock")
	uln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	if pid, err := ListenerPID(Addr{Network: "unix", Path: path}); err != nil || pid != os.Getpid() {
		t.Errorf("ListenerPID(unix %s) = %d, %v; want %d", path, pid, err, os.Getpid())
	}
}

func TestListenerPIDNamesAMissingListener(t *testing.T) {
	// A port that was listening a moment ago and is closed now.
	port := porttest.Closed(t)
	a := Addr{Network: "tcp", Host: "127.0.0.1", Port: port}
	_, err := ListenerPID(a)
	if !errors.Is(err, ErrNoListener) {
		t.Fatalf("ListenerPID(%s) = %v, want ErrNoListener", a, err)
	}
	if got := err.Error(); !strings.Contains(got, a.String()) {
		t.Errorf("error %q does not name %s", got, a)
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
)

// TestHoprelayEndToEnd runs the binary as a user would, with socat's
// address syntax: readiness line, relaying UNIX→TCP, stats on SIGUSR1 and
// at exit, clean exit on SIGTERM with the UNIX path removed.
func TestHoprelayEndToEnd(t *testing.T) {
	bin := peer.Hoplat(t, "hoprelay")
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	go func() {
		for {
			c, err := up.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	dir, err := os.MkdirTemp("", "hr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "mysql.sock")
	stats := filepath.Join(dir, "stats.json")
	for _, engine := range []string{"goroutine", "epoll", "splice"} {
		t.Run(engine, func(t *testing.T) {
			os.Remove(stats)
			cmd := exec.Command(bin, "--engine", engine, "--stats", stats,
				"UNIX-LISTEN:"+sock+",fork", "TCP4:"+up.Addr().String()+",nodelay")
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if want := "listening unix:" + sock + "\n"; err != nil || line != want {
				t.Fatalf("readiness line %q, %v; want %q", line, err, want)
			}
			c, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			c.Write([]byte("ping"))
			buf := make([]byte, 4)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
				t.Fatalf("echo %q, %v", buf, err)
			}
			cmd.Process.Signal(syscall.SIGUSR1)
			waitFile(t, stats)
			c.Close()
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("exit after SIGTERM: %v", err)
			}
			if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("UNIX path left behind: %v", err)
			}
			var s struct {
				Schema      string `json:"schema"`
				Connections struct {
					Accepted int `json:"accepted"`
				} `json:"connections"`
			}
			b, _ := os.ReadFile(stats)
			if err := json.Unmarshal(b, &s); err != nil || s.Schema != "hoplat.relay.v1" || s.Connections.Accepted != 1 {
				t.Errorf("stats at exit: %v\n%s", err, b)
			}
		})
	}
}

// waitFile waits (bounded) for the stats file SIGUSR1 asked for: the
// signal is asynchronous and there is no other event to wait on.
func waitFile(t *testing.T, path string) {
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s not written after SIGUSR1", path)
}

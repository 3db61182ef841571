package relay_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
)

// TestSpliceUsed proves, from outside the process, which engines move bytes
// with splice(2): hoprelay runs under strace, 1 MiB goes through it each
// way, and the trace must show splice calls for the goroutine engine (Go's
// TCPConn.ReadFrom/WriteTo, possible only because the engine hands io.Copy
// the unwrapped conns) and the splice engine, and none for epoll.
func TestSpliceUsed(t *testing.T) {
	strace := peer.Require(t, "strace")
	bin := peer.Hoplat(t, "hoprelay")
	for _, tc := range []struct {
		engine, client, upstream string
		want                     bool
	}{
		{"goroutine", "tcp", "tcp", true},
		{"goroutine", "unix", "tcp", true},
		{"splice", "tcp", "tcp", true},
		{"splice", "unix", "unix", true},
		{"epoll", "tcp", "tcp", false},
	} {
		t.Run(tc.engine+"-"+tc.client+"-"+tc.upstream, func(t *testing.T) {
			up := startUpstream(t, tc.upstream, echo)
			dir := shortTempDir(t)
			listen := "tcp:127.0.0.1:0"
			if tc.client == "unix" {
				listen = "unix:" + filepath.Join(dir, "r.sock")
			}
			trace := filepath.Join(dir, "trace")
			cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=splice", "-o", trace,
				bin, "--engine", tc.engine, listen, up.addr.String())
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// strace blocks SIGINT and SIGTERM while it runs a command
			// (-I 3 is its default with -o): stop hoprelay itself, its
			// child, and strace follows.
			stop := func() {
				if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid)); err == nil {
					for _, f := range strings.Fields(string(b)) {
						if pid, err := strconv.Atoi(f); err == nil {
							syscall.Kill(pid, syscall.SIGTERM)
						}
					}
				}
				cmd.Wait()
			}
			var once sync.Once
			defer once.Do(stop)
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				if strings.Contains(stderr.String(), "PTRACE") || strings.Contains(stderr.String(), "ptrace") {
					peer.Unavailable(t, "strace cannot trace here: "+stderr.String())
				}
				t.Fatalf("no readiness line: %v; stderr: %s", err, stderr.String())
			}
			addr := strings.TrimSpace(strings.TrimPrefix(line, "listening "))
			network, target, _ := strings.Cut(addr, ":")
			c, err := net.Dial(network, target)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			payload := bytes.Repeat([]byte("0123456789abcdef"), 64<<10)
			go func() {
				c.Write(payload)
				c.(interface{ CloseWrite() error }).CloseWrite()
			}()
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			got, err := io.ReadAll(c)
			if err != nil || !bytes.Equal(got, payload) {
				t.Fatalf("echo through relay: %d bytes, %v", len(got), err)
			}
			once.Do(stop)
			b, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			n := strings.Count(string(b), "splice(")
			if tc.want && n == 0 {
				t.Errorf("engine %s %s->%s: no splice(2) calls traced", tc.engine, tc.client, tc.upstream)
			}
			if !tc.want && n > 0 {
				t.Errorf("engine %s: %d splice(2) calls traced, want none", tc.engine, n)
			}
			t.Logf("%d splice calls", n)
		})
	}
}

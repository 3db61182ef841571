package relay_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
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
	"github.com/hoplat/hoplat/relay"
)

// TestSpliceUsed proves, from outside the process, which engines move bytes
// with splice(2): hoprelay runs under strace, 8 MiB go through it each
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
			args := []string{"-f", "-qq", "-e", "trace=splice", "-o", trace, bin, "--engine", tc.engine}
			if tc.engine == "goroutine" {
				// The goroutine engine splices once spliceAfter reads in
				// a row fill its buffer. Loopback delivers a stream in
				// segments of up to 64 KiB: a 64 KiB buffer fills only
				// when the relay has fallen more than a segment behind
				// the sender, which a machine that lets it keep up never
				// gives; a 4 KiB one fills many times over from every
				// segment, whatever the pace.
				args = append(args, "--buffer", "4K")
			}
			cmd := exec.Command(strace, append(args, listen, up.addr.String())...)
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
			// 8 MiB each way: a stream, as the engines' choices see one.
			payload := bytes.Repeat([]byte("0123456789abcdef"), 512<<10)
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

// TestSpliceStreamPipe: a direction that streams through the splice engine
// gets a big pipe (fewer splice calls per byte, splice_linux.go) and still
// delivers every byte in order, while request/response traffic never fills
// its pipe and keeps the small one. Each 8-byte word of the stream is its
// own offset, so a lost, repeated or reordered chunk shows.
func TestSpliceStreamPipe(t *testing.T) {
	cfg := relay.Config{Engine: relay.EngineSplice}
	t.Run("small-messages", func(t *testing.T) {
		up := startUpstream(t, "tcp", echo)
		rr := startRelay(t, cfg, "tcp", up.addr)
		c := dial(t, rr.Addr())
		defer c.Close()
		msg := make([]byte, 64)
		for i := range 200 {
			msg[0] = byte(i)
			if _, err := c.Write(msg); err != nil {
				t.Fatal(err)
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(c, msg); err != nil || msg[0] != byte(i) {
				t.Fatalf("round trip %d: %v, byte %d", i, err, msg[0])
			}
		}
		if grown, _, _ := relay.SplicePipesGrown(rr.Relay); grown != 0 {
			t.Errorf("%d pipes grew under 64-byte round trips, want 0", grown)
		}
	})
	t.Run("stream", func(t *testing.T) {
		up := startUpstream(t, "tcp", echo)
		rr := startRelay(t, cfg, "tcp", up.addr)
		if _, size, _ := relay.SplicePipesGrown(rr.Relay); size == 0 {
			t.Skip("pipe-max-size is no more than the 64 KiB default: no pipe can grow")
		}
		c := dial(t, rr.Addr())
		defer c.Close()
		const total = 32 << 20
		want := make([]byte, total)
		for i := 0; i < total; i += 8 {
			binary.LittleEndian.PutUint64(want[i:], uint64(i))
		}
		got := make(chan []byte, 1)
		go func() {
			b, _ := readAllDeadline(c, 60*time.Second)
			got <- b
		}()
		// 4 MiB writes queue more than a 64 KiB pipe holds at once.
		for rest := want; len(rest) > 0; rest = rest[min(len(rest), 4<<20):] {
			if _, err := c.Write(rest[:min(len(rest), 4<<20)]); err != nil {
				t.Fatal(err)
			}
		}
		closeWrite(t, c)
		b := <-got
		if len(b) != total {
			t.Fatalf("got %d bytes back of %d", len(b), total)
		}
		for i := 0; i < total; i += 8 {
			if v := binary.LittleEndian.Uint64(b[i:]); v != uint64(i) {
				t.Fatalf("word at offset %d holds %d", i, v)
			}
		}
		s := rr.Stats()
		c2u := s.Directions.ClientToUpstream
		grown, size, _ := relay.SplicePipesGrown(rr.Relay)
		t.Logf("%d pipes grew to %d bytes; client->upstream %d bytes in %d chunks", grown, size, c2u.Bytes, c2u.Chunks)
		if grown == 0 {
			t.Errorf("no pipe grew over a %d MiB stream", total>>20)
		}
		if c2u.Chunks >= total/relay.DefaultBuffer {
			t.Errorf("client->upstream: %d chunks for %d bytes, want fewer than with %d-byte pipes", c2u.Chunks, c2u.Bytes, relay.DefaultBuffer)
		}
	})
}

package relay_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
)

// peerRelay is a relay running as its own process: one of hoprelay's
// engines, socat, or HAProxy (mode tcp, one thread).
type peerRelay struct {
	name string
	addr string // 127.0.0.1:PORT
	cmd  *exec.Cmd
}

var peerKinds = []string{"goroutine", "epoll", "splice", "sockmap", "socat", "haproxy"}

func startPeerRelay(b *testing.B, kind, upstream string) *peerRelay {
	b.Helper()
	p := &peerRelay{name: kind}
	switch kind {
	case "socat":
		port := freePort(b)
		p.addr = "127.0.0.1:" + port
		p.cmd = exec.Command(peer.Require(b, "socat"), "TCP4-LISTEN:"+port+",bind=127.0.0.1,reuseaddr,fork,nodelay", "TCP4:"+upstream+",nodelay")
	case "haproxy":
		port := freePort(b)
		p.addr = "127.0.0.1:" + port
		cfg := filepath.Join(b.TempDir(), "haproxy.cfg")
		// maxconn such that 2 fds per connection fit the 20,000 fd limit.
		os.WriteFile(cfg, []byte(fmt.Sprintf("global\n\tnbthread 1\n\tmaxconn 9500\ndefaults\n\tmode tcp\n\ttimeout connect 5s\n\ttimeout client 1h\n\ttimeout server 1h\nlisten relay\n\tbind %s\n\tserver upstream %s\n", p.addr, upstream)), 0o600)
		p.cmd = exec.Command(peer.Require(b, "haproxy"), "-db", "-f", cfg)
	default:
		p.cmd = exec.Command(peer.Hoplat(b, "hoprelay"), "--engine", kind, "tcp:127.0.0.1:0", "tcp:"+upstream)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	p.cmd.Stderr = os.Stderr
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	if p.addr == "" {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			b.Fatalf("%s: no readiness line: %v", kind, err)
		}
		p.addr = strings.TrimPrefix(strings.TrimSpace(line), "listening tcp:")
		return p
	}
	go io.Copy(io.Discard, stdout)
	// socat and HAProxy print no readiness line: probe until they accept.
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", p.addr)
		if err == nil {
			c.Close()
			return p
		}
		if i == 200 {
			b.Fatalf("%s never listened on %s: %v", kind, p.addr, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (p *peerRelay) stop() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Signal(os.Interrupt)
		p.cmd.Wait()
	}
}

func (p *peerRelay) rss(b *testing.B) int64 {
	b.Helper()
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(s), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

func freePort(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// tcpUpstream serves every connection with serve on loopback.
func tcpUpstream(b *testing.B, serve func(net.Conn)) (string, *sync.WaitGroup, net.Listener) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); defer c.Close(); serve(c) }()
		}
	}()
	b.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String(), &wg, ln
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// BenchmarkPeers compares the engines with socat and HAProxy as separate
// processes, in interleaved rounds: tps with 64 connections ping-ponging 64
// bytes, a 1 GiB stream, and RSS per idle relayed connection.
// HOPLAT_RELAY_ROUNDS, HOPLAT_RELAY_CONNS and HOPLAT_RELAY_PEERS (a comma
// list of relays) tune it.
func BenchmarkPeers(b *testing.B) {
	rounds := envInt("HOPLAT_RELAY_ROUNDS", 3)
	peerKinds := peerKinds
	if v := os.Getenv("HOPLAT_RELAY_PEERS"); v != "" {
		peerKinds = strings.Split(v, ",")
	}
	b.Run("tps64", func(b *testing.B) {
		up, _, _ := tcpUpstream(b, func(c net.Conn) { io.Copy(c, c) })
		relays := map[string]*peerRelay{}
		for _, k := range peerKinds {
			relays[k] = startPeerRelay(b, k, up)
		}
		tps := map[string][]float64{}
		for range rounds {
			for _, k := range peerKinds {
				tps[k] = append(tps[k], pingPong(b, relays[k].addr, 64, 2*time.Second))
			}
		}
		for _, k := range peerKinds {
			b.ReportMetric(median(tps[k]), "tps-"+k)
		}
	})
	b.Run("stream1GiB", func(b *testing.B) {
		// Readiness probes connect and close at once: only a
		// connection that carried bytes reports.
		done := make(chan int64, 1)
		up, _, _ := tcpUpstream(b, func(c net.Conn) {
			if n, _ := io.Copy(io.Discard, c); n > 0 {
				done <- n
			}
		})
		// sockmap now and then repeats an skb while a direction is
		// paused (relay/doc.go, KNOWN DEFECT): it has no stream figure
		// until that is fixed.
		streamKinds := slices.DeleteFunc(slices.Clone(peerKinds), func(k string) bool { return k == "sockmap" })
		relays := map[string]*peerRelay{}
		for _, k := range streamKinds {
			relays[k] = startPeerRelay(b, k, up)
		}
		const total = 1 << 30
		buf := make([]byte, 1<<20)
		rate := map[string][]float64{}
		for range max(1, rounds-1) {
			for _, k := range streamKinds {
				c, err := net.Dial("tcp", relays[k].addr)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				for sent := 0; sent < total; sent += len(buf) {
					if _, err := c.Write(buf); err != nil {
						b.Fatal(err)
					}
				}
				c.(*net.TCPConn).CloseWrite()
				got := <-done
				el := time.Since(start)
				c.Close()
				if got != total {
					b.Fatalf("%s: sink got %d bytes of %d", k, got, total)
				}
				rate[k] = append(rate[k], float64(total)/el.Seconds()/1e6)
			}
		}
		for _, k := range streamKinds {
			b.ReportMetric(median(rate[k]), "MB/s-"+k)
		}
	})
	b.Run("idleRSS", func(b *testing.B) {
		// Each idle connection costs the goroutine engine 6 fds (two
		// sockets and, while Go's splice waits, a pipe per direction): N
		// stays within the 20,000-fd limit for every relay.
		n := envInt("HOPLAT_RELAY_CONNS", 3000)
		up, _, _ := tcpUpstream(b, func(c net.Conn) { io.Copy(io.Discard, c) })
		for _, k := range []string{"goroutine", "epoll", "splice", "haproxy"} {
			p := startPeerRelay(b, k, up)
			before := p.rss(b)
			conns := make([]net.Conn, 0, n)
			for range n {
				c, err := net.Dial("tcp", p.addr)
				if err != nil {
					b.Fatalf("%s: dial %d: %v", k, len(conns), err)
				}
				conns = append(conns, c)
			}
			// One byte each and back-pressure-free: proves every
			// connection is relayed, then lets it sit idle.
			for _, c := range conns {
				c.Write([]byte{1})
			}
			time.Sleep(500 * time.Millisecond) // settle: measuring, not waiting for readiness
			after := p.rss(b)
			for _, c := range conns {
				c.Close()
			}
			p.stop()
			b.ReportMetric(float64(after-before)/float64(n), "B/conn-"+k)
		}
	})
}

// pingPong runs conns clients, each writing 64 bytes and reading them
// back, for d; it returns round trips per second.
func pingPong(b *testing.B, addr string, conns int, d time.Duration) float64 {
	var total atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			msg := make([]byte, 64)
			n := int64(0)
			for time.Now().Before(deadline) {
				if _, err := c.Write(msg); err != nil {
					break
				}
				if _, err := io.ReadFull(c, msg); err != nil {
					break
				}
				n++
			}
			total.Add(n)
		}()
	}
	wg.Wait()
	return float64(total.Load()) / d.Seconds()
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

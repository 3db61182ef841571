package driver

// The test binary doubles as stand-ins for pongd, hoprelay and pingpong, so
// that the orchestration runs end to end — real processes, real loopback
// sockets, readiness lines, signals — before the real binaries exist. Each
// speaks just enough of what its command documents: `listening ADDR` lines,
// SIGTERM to stop, pingpong's JSON with a histogram, hoprelay's stats JSON.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/sockets"
	"github.com/hoplat/hoplat/stats"
)

// fakeFlags splits argv into --flag value pairs and positional arguments.
func fakeFlags(args []string) (map[string][]string, []string) {
	flags := map[string][]string{}
	var pos []string
	for i := 0; i < len(args); i++ {
		if len(args[i]) > 2 && args[i][:2] == "--" && i+1 < len(args) {
			flags[args[i][2:]] = append(flags[args[i][2:]], args[i+1])
			i++
			continue
		}
		pos = append(pos, args[i])
	}
	return flags, pos
}

// serve listens on every address, prints the readiness lines, hands each
// connection to handle, and returns after SIGTERM once every listener is
// closed (UNIX paths removed) and every handler has returned.
func serve(addrs []string, handle func(net.Conn)) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	var lns []*sockets.Listener
	for _, s := range addrs {
		a, err := sockets.Parse(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		ln, err := sockets.Listen(context.Background(), a)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		lns = append(lns, ln)
	}
	for _, ln := range lns {
		fmt.Printf("listening %s\n", ln.Spec().FromNet(ln.Addr()))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	for _, ln := range lns {
		wg.Go(func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns[c] = true
				mu.Unlock()
				wg.Go(func() {
					handle(c)
					c.Close()
					mu.Lock()
					delete(conns, c)
					mu.Unlock()
				})
			}
		})
	}
	<-sig
	for _, ln := range lns {
		ln.Close()
	}
	mu.Lock()
	for c := range conns {
		c.Close()
	}
	mu.Unlock()
	wg.Wait()
	return 0
}

func fakePongd(args []string) int {
	flags, _ := fakeFlags(args)
	var service time.Duration
	if v := flags["service-time"]; len(v) > 0 {
		service, _ = time.ParseDuration(v[0])
	}
	if service == 0 {
		return serve(flags["listen"], func(c net.Conn) { io.Copy(c, c) })
	}
	// As pongd --service-time: the time a backend spends on a request
	// before it answers.
	return serve(flags["listen"], func(c net.Conn) {
		buf := make([]byte, 64<<10)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			time.Sleep(service) // the backend's own time per request, not a wait for readiness
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
	})
}

func fakeHoprelay(args []string) int {
	flags, pos := fakeFlags(args)
	if len(pos) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hoprelay LISTEN CONNECT")
		return 2
	}
	up, err := sockets.Parse(pos[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var chunks, live, residenceNs atomic.Int64
	// As hoprelay: stats on SIGUSR1 and at exit, replaced by a rename.
	// Residence of 2 µs per chunk for each connection open, two chunks
	// per request: 4 µs a request with one client, 8 with two, as if the
	// relay served its connections in turn.
	writeStats := func() {
		files := flags["stats"]
		if len(files) == 0 {
			return
		}
		n := chunks.Load()
		mean := 0.0
		if n > 0 {
			mean = float64(residenceNs.Load()) / float64(2*n)
		}
		stats := fmt.Sprintf(`{"schema":"hoplat.relay.v1","directions":{"client_to_upstream":{"chunks":%d},"upstream_to_client":{"chunks":%d}},"residence":{"count":%d,"mean_ns":%g}}`, n, n, 2*n, mean)
		os.WriteFile(files[0]+".tmp", []byte(stats), 0o600)
		os.Rename(files[0]+".tmp", files[0])
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	quit := make(chan struct{})
	var usr1Done sync.WaitGroup
	usr1Done.Go(func() {
		for {
			select {
			case <-usr1:
				writeStats()
			case <-quit:
				return
			}
		}
	})
	usr1Stop := func() { signal.Stop(usr1); close(quit); usr1Done.Wait() }
	code := serve(pos[:1], func(c net.Conn) {
		u, err := sockets.Dial(context.Background(), up)
		if err != nil {
			return
		}
		defer u.Close()
		live.Add(1)
		defer live.Add(-1)
		done := make(chan struct{})
		go func() {
			io.Copy(c, u)
			close(done)
		}()
		buf := make([]byte, 64<<10)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				residenceNs.Add(2 * 2000 * live.Load())
				chunks.Add(1)
				u.Write(buf[:n])
			}
			if err != nil {
				break
			}
		}
		u.Close()
		<-done
	})
	writeStats()
	usr1Stop()
	if l := flags["lock"]; len(l) > 0 && l[0] == "global" {
		return 3 // a relay that fails as it stops, for TestRunStopFailureIsAWarning
	}
	return code
}

func fakePingpong(args []string) int {
	flags, _ := fakeFlags(args)
	target, err := sockets.Parse(flags["target"][0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	threads, _ := strconv.Atoi(flags["threads"][0])
	d, _ := time.ParseDuration(flags["time"][0])
	size := 64
	if s, ok := flags["size"]; ok {
		size, _ = strconv.Atoi(s[0])
	}
	hist := stats.NewHistogram()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs atomic.Int64
	var dialErr error
	end := time.Now().Add(d)
	for range threads {
		wg.Go(func() {
			c, err := sockets.Dial(context.Background(), target)
			if err != nil {
				mu.Lock()
				dialErr = err
				mu.Unlock()
				return
			}
			defer c.Close()
			h := stats.NewHistogram()
			buf := make([]byte, size)
			for time.Now().Before(end) {
				t0 := time.Now()
				if _, err := c.Write(buf); err != nil {
					errs.Add(1)
					return
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					errs.Add(1)
					return
				}
				h.Record(time.Since(t0).Nanoseconds())
			}
			mu.Lock()
			hist.Merge(h)
			mu.Unlock()
		})
	}
	wg.Wait()
	if dialErr != nil {
		fmt.Fprintln(os.Stderr, "pingpong:", dialErr)
		return 1
	}
	enc, _ := hist.Encode()
	lat := stats.LatencyOf(hist)
	out := map[string]any{
		"schema": "hoplat.pingpong.v1",
		"env":    map[string]any{"pinning": map[string]string{"workers": "0-1"}},
		"results": []map[string]any{{
			"threads":    threads,
			"tps":        map[string]any{"mean": float64(hist.Count()) / d.Seconds()},
			"latency_us": lat,
			"errors":     errs.Load(),
			"histogram":  enc,
		}},
	}
	json.NewEncoder(os.Stdout).Encode(out)
	return 0
}

// fakeBin is a directory holding pongd, hoprelay and pingpong as links to
// the test binary.
func fakeBin(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"pongd", "hoprelay", "pingpong"} {
		if err := os.Symlink(exe, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakeLocator finds the stand-ins in dir and nothing else: socat and
// HAProxy are "not installed" unless real is set, then found as usual.
func fakeLocator(dir string, real bool) Locator {
	return func(name string) (string, error) {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if real {
			return Locate(name)
		}
		return "", fmt.Errorf("driver: %s not found (%s)", name, installHint(name))
	}
}

package relay_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// loadEnv makes the test binary one of BenchmarkPeers' load processes
// instead of running tests: a client or a server in a process of its own,
// so that it can be started on the CPUs a placement gives it
// (affinity.StartOn) like the relay between them. The value is the mode
// and its arguments, separated by spaces:
//
//	sink                      server: reads every connection to EOF, then
//	                          prints "got N" for one that carried bytes
//	stream ADDR BYTES         client: writes BYTES in 1 MiB writes, shuts
//	                          its write side and reads to EOF; prints
//	                          "secs X", the time from the first write to
//	                          the EOF
//	hold ADDR N               client: opens N connections, writes one
//	                          byte on each, prints "held"
//
// Servers print "listening ADDR" first. Every mode runs until its stdin
// reaches EOF, which the parent causes by closing the pipe or by dying,
// so no load process outlives the benchmark.
const loadEnv = "HOPLAT_RELAY_LOAD"

// runLoad runs the load mode loadEnv names, if any; ok reports whether
// the process was a load process, and code is then its exit status.
func runLoad() (code int, ok bool) {
	spec := os.Getenv(loadEnv)
	if spec == "" {
		return 0, false
	}
	if err := load(strings.Fields(spec)); err != nil {
		fmt.Fprintf(os.Stderr, "relay load %q: %v\n", spec, err)
		return 1, true
	}
	return 0, true
}

func load(args []string) error {
	if len(args) == 0 {
		return errors.New("no mode")
	}
	stdinEOF := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stdinEOF) }()
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, a ...any) {
		fmt.Fprintf(out, format+"\n", a...)
		out.Flush()
	}
	switch mode := args[0]; mode {
	case "sink":
		if len(args) != 1 {
			return fmt.Errorf("%s takes no arguments, got %q", mode, args[1:])
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		var mu sync.Mutex // say from many connections
		// 1 MiB reads, as the stream client writes: the 8 KiB reads of
		// io.Copy into io.Discard would cost the sink 131,072 read(2) per
		// GiB on the CPU it may share with the relay.
		serve := func(c net.Conn) {
			buf := make([]byte, 1<<20)
			var n int64
			for {
				m, err := c.Read(buf)
				n += int64(m)
				if err != nil {
					break
				}
			}
			if n > 0 { // readiness probes connect and close at once
				mu.Lock()
				say("got %d", n)
				mu.Unlock()
			}
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() { defer c.Close(); serve(c) }()
			}
		}()
		say("listening %s", ln.Addr())
		<-stdinEOF
		return ln.Close()
	case "stream":
		if len(args) != 3 {
			return fmt.Errorf("stream wants ADDR BYTES, got %q", args[1:])
		}
		total, err := strconv.ParseInt(args[2], 10, 64)
		if err != nil {
			return fmt.Errorf("stream bytes %q: %w", args[2], err)
		}
		secs, err := stream(args[1], total)
		if err != nil {
			return err
		}
		say("secs %f", secs)
	case "hold":
		if len(args) != 3 {
			return fmt.Errorf("hold wants ADDR N, got %q", args[1:])
		}
		n, err := strconv.Atoi(args[2])
		if err != nil {
			return fmt.Errorf("hold n %q: %w", args[2], err)
		}
		conns := make([]net.Conn, 0, n)
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for range n {
			c, err := net.Dial("tcp", args[1])
			if err != nil {
				return fmt.Errorf("hold: dial %d: %w", len(conns), err)
			}
			conns = append(conns, c)
		}
		// One byte each and back-pressure-free: every connection is
		// relayed, then sits idle.
		for _, c := range conns {
			if _, err := c.Write([]byte{1}); err != nil {
				return fmt.Errorf("hold: write: %w", err)
			}
		}
		say("held")
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	<-stdinEOF
	return nil
}

// stream writes total bytes to addr, shuts its write side and reads to
// the EOF that follows once the far end has read everything and closed.
func stream(addr string, total int64) (float64, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, fmt.Errorf("stream: dial %s: %w", addr, err)
	}
	defer c.Close()
	buf := make([]byte, 1<<20)
	start := time.Now()
	for sent := int64(0); sent < total; {
		n, err := c.Write(buf[:min(int64(len(buf)), total-sent)])
		sent += int64(n)
		if err != nil {
			return 0, fmt.Errorf("stream: write after %d bytes: %w", sent, err)
		}
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		return 0, fmt.Errorf("stream: shutdown: %w", err)
	}
	if _, err := io.Copy(io.Discard, c); err != nil {
		return 0, fmt.Errorf("stream: wait for EOF: %w", err)
	}
	return time.Since(start).Seconds(), nil
}

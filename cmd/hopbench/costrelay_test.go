package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// costRelayEnv makes this test binary a relay of known cost (costRelay):
// HOPLAT_COST_RELAY=DUR, arguments LISTEN UPSTREAM (HOST:PORT each), as a
// hopbench --proxy command runs it.
const costRelayEnv = "HOPLAT_COST_RELAY"

// costRelay relays every connection accepted on listen to upstream, and
// spins for cost, by the clock, on every read from the client before it
// forwards it: a relay whose code costs a set time per request. It runs
// until it is killed.
func costRelay(cost string, args []string) {
	spin, err := time.ParseDuration(cost)
	if err != nil || len(args) != 2 {
		fmt.Fprintf(os.Stderr, "cost relay: %s=%q %q: want DUR and LISTEN UPSTREAM\n", costRelayEnv, cost, args)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "cost relay:", err)
		os.Exit(1)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "cost relay:", err)
			os.Exit(1)
		}
		go forwardAtCost(c, args[1], spin)
	}
}

// forwardAtCost serves one client connection: replies are copied back as
// they come, requests forwarded after the spin. Either side's end closes
// both.
func forwardAtCost(c net.Conn, upstream string, spin time.Duration) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	if tc, ok := u.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	go func() { io.Copy(c, u); c.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		for begin := time.Now(); time.Since(begin) < spin; {
		}
		if _, err := u.Write(buf[:n]); err != nil {
			return
		}
	}
}

package sockets_test

import (
	"fmt"
	"net"
	"time"

	"github.com/hoplat/hoplat/sockets"
)

// The kernel stamps bytes when loopback queues them; the reader learns how
// long they waited for it to run.
func ExampleStampedReader() {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	client, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer server.Close()

	r, err := sockets.NewStampedReader(server.(*net.TCPConn))
	if err != nil {
		fmt.Println(err)
		return
	}
	buf := make([]byte, 16)
	for range 100000 {
		sent := time.Now()
		client.Write([]byte("ping"))
		n, ts, err := r.Read(buf)
		if err != nil {
			fmt.Println(err)
			return
		}
		if ts.IsZero() {
			// The kernel switches stamping on for the whole stack a
			// moment after the first socket asks for it.
			continue
		}
		waited := time.Since(ts) // the reader's wake-up delay, and the read
		fmt.Println(string(buf[:n]), !ts.Before(sent), waited >= 0)
		return
	}
	// Output:
	// ping true true
}

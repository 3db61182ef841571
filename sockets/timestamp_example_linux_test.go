package sockets_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/hoplat/hoplat/sockets"
)

// The kernel stamps bytes when loopback queues them; the reader learns how
// long they waited for it to run. The stack switches stamping on a moment
// after the first socket asks, so a measurement holds a keeper first.
func ExampleStampedReader() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keeper, err := sockets.KeepRXStamps(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer keeper.Close()

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
	sent := time.Now()
	client.Write([]byte("ping"))
	n, ts, err := r.Read(buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	waited := time.Since(ts) // the reader's wake-up delay, and the read
	fmt.Println(string(buf[:n]), !ts.IsZero() && !ts.Before(sent), waited >= 0)
	// Output:
	// ping true true
}

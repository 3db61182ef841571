package relay_test

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

// A relay in front of an upstream, as socat would be: the listen address
// asks for port 0, Addr tells where to dial.
func Example() {
	up, _ := sockets.Parse("tcp:127.0.0.1:0")
	ln, err := sockets.Listen(context.Background(), up)
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	go func() { // an upstream that greets and closes
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write([]byte("hello from upstream\n"))
		c.Close()
	}()

	listen, _ := sockets.Parse("TCP4-LISTEN:0,reuseaddr,fork,nodelay")
	connect := ln.Spec().FromNet(ln.Addr())
	r, err := relay.New(listen, connect, relay.Config{Engine: relay.EngineEpoll})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Serve(ctx) }()

	c, err := sockets.Dial(context.Background(), r.Addr())
	if err != nil {
		log.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	c.Close()
	fmt.Print(string(b))

	stop()
	fmt.Println("serve:", <-done)
	fmt.Println("connections:", r.Stats().Connections.Accepted)
	// Output:
	// hello from upstream
	// serve: <nil>
	// connections: 1
}

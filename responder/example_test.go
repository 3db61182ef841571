package responder_test

import (
	"context"
	"fmt"
	"io"

	"github.com/hoplat/hoplat/echo/frame"
	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/responder"
	"github.com/hoplat/hoplat/responder/echo"
	"github.com/hoplat/hoplat/sockets"
)

// A responder serving echo on a kernel-chosen port, each connection on a
// blocking raw fd: one frame written, the same frame read back.
func ExampleServer() {
	listen, _ := sockets.Parse("tcp:127.0.0.1:0")
	srv := &responder.Server{Listen: []sockets.Addr{listen}, IO: iomodel.Blocking, Handler: echo.Handler{}}
	if err := srv.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	c, err := sockets.Dial(context.Background(), srv.Addrs()[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	req := frame.New(64)
	c.Write(req)
	reply := make([]byte, len(req))
	_, err = io.ReadFull(c, reply)
	fmt.Println(err, string(reply) == string(req))
	// Output: <nil> true
}

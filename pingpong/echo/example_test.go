package echo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hoplat/hoplat/pingpong/echo"
	"github.com/hoplat/hoplat/responder"
	respecho "github.com/hoplat/hoplat/responder/echo"
	"github.com/hoplat/hoplat/sockets"
)

// A responder on a UNIX socket and one client session: each Event is one
// checked round trip (running no SQL statement).
func Example() {
	dir, _ := os.MkdirTemp("", "echo-example-")
	defer os.RemoveAll(dir)
	a, _ := sockets.Parse("unix:" + filepath.Join(dir, "echo.sock"))
	srv := &responder.Server{Listen: []sockets.Addr{a}, Handler: respecho.Handler{}}
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
	s, _ := echo.Protocol{Size: 64}.Open(c, true)
	for range 3 {
		q, err := s.Event()
		fmt.Println(q, err)
	}
	// Output:
	// 0 <nil>
	// 0 <nil>
	// 0 <nil>
}

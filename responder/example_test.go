package responder_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/responder"
	"github.com/hoplat/hoplat/responder/echo"
	"github.com/hoplat/hoplat/sockets"
)

// A responder on a TCP port the kernel chooses and a UNIX path at once,
// bound before it serves, as pongd announces its addresses in between.
// Under Auto, its connections pinned to one CPU, it holds AutoPerCPU of
// them blocking.
func ExampleServer_Bind() {
	dir, _ := os.MkdirTemp("", "responder-example-")
	defer os.RemoveAll(dir)
	tcp, _ := sockets.Parse("tcp:127.0.0.1:0")
	unix, _ := sockets.Parse("unix:" + filepath.Join(dir, "pong.sock"))
	srv := &responder.Server{Listen: []sockets.Addr{tcp, unix}, IO: iomodel.Auto, CPUs: []int{0}, Handler: echo.Handler{}}
	if err := srv.Bind(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	srv.Serve()
	defer srv.Close()
	for _, a := range srv.Addrs() {
		fmt.Println(a.IsUnix(), a.Port > 0) // the kernel chose a port
	}
	fmt.Println(srv.AutoLimit())
	// Output:
	// false true
	// true false
	// 16
}

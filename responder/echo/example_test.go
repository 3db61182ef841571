package echo_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hoplat/hoplat/echo/frame"
	"github.com/hoplat/hoplat/responder/echo"
)

// A Handler answers each whole frame it reads, pipelined or not, and
// returns nil at a clean end of stream.
func ExampleHandler() {
	in := append(frame.New(64), frame.New(12)...)
	var out bytes.Buffer
	err := echo.Handler{}.ServeConn(struct {
		io.Reader
		io.Writer
	}{bytes.NewReader(in), &out}, false)
	fmt.Println(err, bytes.Equal(out.Bytes(), in))
	// Output: <nil> true
}

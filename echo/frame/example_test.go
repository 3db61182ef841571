package frame_test

import (
	"fmt"

	"github.com/hoplat/hoplat/echo/frame"
)

// A request announces its own length; a responder reads it back before it
// has the whole frame.
func Example() {
	req := frame.New(64)
	n, err := frame.Len(req)
	fmt.Println(n, err, frame.Seq(req))
	_, err = frame.Len([]byte{0, 0, 0, 3})
	fmt.Println(err)
	// Output:
	// 64 <nil> 0
	// echo: frame length 3 out of range 12..1048576
}

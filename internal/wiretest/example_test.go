package wiretest_test

import (
	"fmt"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
)

// A Pipe reads back what a test gave it and keeps what the code under
// test wrote.
func ExampleNewPipe() {
	p := wiretest.NewPipe(wiretest.Unhex(&testing.T{}, "01 02 03"))
	b := make([]byte, 3)
	n, _ := p.Read(b)
	p.Write([]byte("ok"))
	fmt.Println(n, b, p.Out.String())
	// Output: 3 [1 2 3] ok
}

// An Echo reads back, once, what was last written to it.
func ExampleEcho() {
	e := &wiretest.Echo{Buf: make([]byte, 8)}
	e.Write([]byte("ping"))
	b := make([]byte, 8)
	n, _ := e.Read(b)
	m, _ := e.Read(b)
	fmt.Println(string(b[:n]), m)
	// Output: ping 0
}

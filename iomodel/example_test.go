package iomodel_test

import (
	"fmt"

	"github.com/hoplat/hoplat/iomodel"
)

// Auto holds a connection blocking on an OS thread of its own while the
// connections held at once fit AutoPerCPU per CPU, and takes the netpoller
// beyond.
func ExampleChoose() {
	for _, n := range []int{1, iomodel.AutoPerCPU, iomodel.AutoPerCPU + 1} {
		c := iomodel.Choose(n, 1)
		fmt.Println(n, c.Model, c.Limit)
	}
	// Output:
	// 1 blocking 16
	// 16 blocking 16
	// 17 netpoll 16
}

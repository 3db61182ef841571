package sbtable_test

import (
	"fmt"

	"github.com/hoplat/hoplat/mysql/sbtable"
)

func ExampleTable() {
	t := sbtable.Table{N: 1, Size: 1_000_000, Seed: 42}
	c := t.AppendC(nil, 123_456)
	fmt.Println(len(c), len(t.AppendPad(nil, 123_456)), c[11], t.Has(0), t.Has(1_000_000))
	fmt.Println(t.K(123_456) == sbtable.Table{N: 1, Size: 1_000_000, Seed: 42}.K(123_456))
	// Output:
	// 119 59 45 false true
	// true
}

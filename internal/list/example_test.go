package list_test

import (
	"fmt"

	"github.com/hoplat/hoplat/internal/list"
)

// A RonDB thread list reads as autobench.conf writes it; a range expands.
func ExampleInts() {
	threads, err := list.Ints("1;2;4;8;12;16", 1)
	fmt.Println(threads, err)
	hops, err := list.Ints("0-3", 0)
	fmt.Println(hops, err)
	mixed, err := list.Ints("1-2;4,8", 1)
	fmt.Println(mixed, err)
	_, err = list.Ints("1,0", 1)
	fmt.Println(fmt.Errorf("--threads %w", err))
	// Output:
	// [1 2 4 8 12 16] <nil>
	// [0 1 2 3] <nil>
	// [1 2 4 8] <nil>
	// --threads "1,0": 0: want at least 1
}

func ExampleDurations() {
	d, err := list.Durations("0,20us,100us,1ms")
	fmt.Println(d, err)
	// Output: [0s 20µs 100µs 1ms] <nil>
}

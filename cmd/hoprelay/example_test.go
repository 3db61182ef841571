package main

import "fmt"

// Sizes take binary suffixes, as --buffer does.
func Example_parseBytes() {
	for _, s := range []string{"65536", "64K", "1M"} {
		n, _ := parseBytes(s)
		fmt.Println(n)
	}
	// Output:
	// 65536
	// 65536
	// 1048576
}

package main

import "fmt"

// The flag values hoprelay reads besides addresses: CPU lists as taskset
// and RonDB write them, and sizes with binary suffixes.
func Example_parse() {
	cpus, _ := parseCPUList("0-2;8")
	size, _ := parseBytes("64K")
	fmt.Println(cpus, size)
	// Output: [0 1 2 8] 65536
}

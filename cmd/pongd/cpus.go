package main

import "github.com/hoplat/hoplat/affinity"

// parseCPUs reads a CPU list ("0-3,8", "0;2", "all") of online CPUs.
func parseCPUs(s string) ([]int, error) {
	set, err := affinity.ParseList(s)
	if err != nil {
		return nil, err
	}
	return set.CPUs(), nil
}

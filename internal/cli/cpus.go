package cli

import (
	"fmt"

	"github.com/hoplat/hoplat/affinity"
)

// CPUs reads a --cpus flag: a CPU list of online CPUs ("0-3,8", "0;2",
// "all") in affinity.ParseList's syntax, as a usage error naming flag when
// it makes no sense.
func CPUs(flag, s string) ([]int, error) {
	set, err := affinity.ParseList(s)
	if err != nil {
		return nil, Usage(fmt.Errorf("--%s: %w", flag, err))
	}
	return set.CPUs(), nil
}

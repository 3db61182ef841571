package pingpong

import (
	"fmt"

	"github.com/hoplat/hoplat/internal/list"
)

// ParseCounts reads a thread-count list in the syntax every hoplat LIST
// takes (internal/list): "1,2,4", RonDB's "1;2;4", or a range "1-4".
// Every count is a positive integer.
func ParseCounts(s string) ([]int, error) {
	n, err := list.Ints(s, 1)
	if err != nil {
		return nil, fmt.Errorf("pingpong: thread counts: %w", err)
	}
	return n, nil
}

package pingpong

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseCounts reads a thread-count list: "1,2,4", or RonDB's "1;2;4".
// Every count is a positive integer.
func ParseCounts(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("pingpong: list %q: empty", s)
	}
	sep := ","
	if strings.Contains(s, ";") {
		sep = ";"
	}
	var out []int
	for _, f := range strings.Split(s, sep) {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("pingpong: list %q: %q is not a positive count", s, f)
		}
		out = append(out, n)
	}
	return out, nil
}

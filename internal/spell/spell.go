package spell

import "strings"

// Nearest is the one of names closest to typed: a name typed begins
// (--run for --runs, when it begins no other), else the name fewest edits
// away (a letter added, dropped, changed, or two swapped) when the edits are
// few beside typed's length. It is "" when none is near, or when two are
// equally near.
func Nearest(typed string, names []string) string {
	typed = strings.ToLower(typed)
	var prefixed []string
	for _, n := range names {
		if n == typed {
			return n
		}
		if strings.HasPrefix(n, typed) && len(typed) >= 2 {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	best, bestD, tie := "", max(1, len(typed)/3)+1, false
	for _, n := range names {
		switch d := Distance(typed, n); {
		case d < bestD:
			best, bestD, tie = n, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// Distance is the optimal string alignment distance between a and b, byte
// by byte: insertions, deletions, substitutions and swaps of neighbours,
// one edit each. It takes time in proportion to len(a)·len(b).
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

package hosts

import (
	"fmt"
	"slices"
	"strings"
)

// knownKey reports whether k is a key of the file: a setting's, one with no
// flag, a component's host or CPUs, or a host's declaration.
func knownKey(k string) bool {
	if slices.ContainsFunc(keyTable, func(s setting) bool { return s.key == k }) {
		return true
	}
	if slices.Contains(fileKeys, k) {
		return true
	}
	for _, c := range Components {
		up := strings.ToUpper(c)
		if k == up+"_HOST" || k == up+"_CPUS" {
			return true
		}
	}
	if name, ok := strings.CutPrefix(k, "HOST_"); ok {
		name, _ = strings.CutSuffix(name, "_VIA")
		return validHostName(strings.ToLower(name))
	}
	if name, ok := strings.CutPrefix(k, "PROXY_"); ok {
		return name != "" // hopbench checks the name (--proxy)
	}
	return false
}

// suggest names a known key close to an unknown one: the same words in
// another order or one edit away covers most typos of these short keys.
func suggest(k string) string {
	if name, ok := strings.CutPrefix(k, "HOST_"); ok {
		return fmt.Sprintf(" (HOST_NAME declares a host: %q is not a host name, want a letter then up to 11 letters or digits)", strings.ToLower(name))
	}
	var known []string
	for _, s := range keyTable {
		known = append(known, s.key)
	}
	known = append(known, fileKeys...)
	for _, c := range Components {
		known = append(known, strings.ToUpper(c)+"_HOST", strings.ToUpper(c)+"_CPUS")
	}
	for a := range aliases {
		known = append(known, a)
	}
	slices.Sort(known)
	for _, c := range known {
		if editDistance(k, c) <= 2 {
			return fmt.Sprintf(" (did you mean %s?)", c)
		}
	}
	return ""
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

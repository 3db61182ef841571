package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// splitList splits a LIST flag value: "1,2,4" or RonDB's "1;2;4"
// (field-notes.md §5), blanks around items allowed, empty items rejected.
func splitList(flag, s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("--%s %q: empty list", flag, s)
	}
	items := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' })
	if n := strings.Count(s, ",") + strings.Count(s, ";") + 1; n != len(items) {
		return nil, fmt.Errorf("--%s %q: empty item", flag, s)
	}
	for i := range items {
		items[i] = strings.TrimSpace(items[i])
		if items[i] == "" {
			return nil, fmt.Errorf("--%s %q: empty item", flag, s)
		}
	}
	return items, nil
}

// parseInts reads a LIST of integers no smaller than least.
func parseInts(flag, s string, least int) ([]int, error) {
	items, err := splitList(flag, s)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(items))
	for i, it := range items {
		n, err := strconv.Atoi(it)
		if err != nil || n < least {
			return nil, fmt.Errorf("--%s %q: bad item %q (want an integer >= %d)", flag, s, it, least)
		}
		out[i] = n
	}
	return out, nil
}

// parseDurations reads a LIST of non-negative durations; a bare 0 is
// allowed, as "0,20us,100us,1ms" reads naturally.
func parseDurations(flag, s string) ([]time.Duration, error) {
	items, err := splitList(flag, s)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, len(items))
	for i, it := range items {
		d, err := time.ParseDuration(it)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("--%s %q: bad item %q (want a duration >= 0 such as 20us or 1ms)", flag, s, it)
		}
		out[i] = d
	}
	return out, nil
}

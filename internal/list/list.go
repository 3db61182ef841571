package list

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxLen bounds how many values Ints expands a list to, so that a range
// such as "1-2000000000" is an error, not an allocation of gigabytes.
const MaxLen = 1 << 16

var (
	errEmpty = errors.New("empty list")
	errMixed = errors.New("mixes , and ; (use one separator)")
)

// Items splits s into its items, blanks trimmed.
func Items(s string) ([]string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, errEmpty
	}
	sep := ","
	switch comma, semi := strings.Contains(t, ","), strings.Contains(t, ";"); {
	case comma && semi:
		return nil, errMixed
	case semi:
		sep = ";"
	}
	items := strings.Split(t, sep)
	for i, it := range items {
		items[i] = strings.TrimSpace(it)
		if items[i] == "" {
			return nil, errors.New("empty element")
		}
	}
	return items, nil
}

// Range reads an integer item: "N" or an inclusive range "LO-HI", both
// non-negative decimal numbers below 2^31 (no sign, so "-1" is refused
// rather than read as a range). noun names a number in errors ("CPU").
func Range(item, noun string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(item, "-")
	if lo, err = number(a, noun); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return lo, lo, nil
	}
	if hi, err = number(b, noun); err != nil {
		return 0, 0, err
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("bad range %q: end before start", item)
	}
	return lo, hi, nil
}

func number(s, noun string) (int, error) {
	s = strings.TrimSpace(s)
	// ParseUint, unlike Atoi, refuses signs; 31 bits keeps it an int anywhere.
	n, err := strconv.ParseUint(s, 10, 31)
	if err != nil {
		return 0, fmt.Errorf("bad %s %q", noun, s)
	}
	return int(n), nil
}

// Ints reads a list of integers, ranges expanded in order, each at least
// least: "1;2;4", "0-3", "1,8-10". Duplicates and order are kept, as a
// sweep runs them.
func Ints(s string, least int) ([]int, error) {
	items, err := Items(s)
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", s, err)
	}
	var out []int
	for _, it := range items {
		lo, hi, err := Range(it, "number")
		if err != nil {
			return nil, fmt.Errorf("list %q: %w", s, err)
		}
		if lo < least {
			return nil, fmt.Errorf("list %q: %d: want at least %d", s, lo, least)
		}
		if hi-lo >= MaxLen-len(out) {
			return nil, fmt.Errorf("list %q: more than %d values", s, MaxLen)
		}
		for n := lo; n <= hi; n++ {
			out = append(out, n)
		}
	}
	return out, nil
}

// Durations reads a list of durations of 0 or more in time.ParseDuration's
// syntax, where a bare 0 reads naturally: "0,20us,100us,1ms". Ranges do not
// apply.
func Durations(s string) ([]time.Duration, error) {
	items, err := Items(s)
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", s, err)
	}
	out := make([]time.Duration, len(items))
	for i, it := range items {
		d, err := time.ParseDuration(it)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("list %q: bad duration %q (want 0 or more, such as 20us or 1ms)", s, it)
		}
		out[i] = d
	}
	return out, nil
}

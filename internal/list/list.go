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

// Error is a list that does not read: the list as typed and what is wrong
// with it. It prints the list quoted, then the reason, so that a flag's
// message puts its name before it and names the value once:
//
//	fmt.Errorf("--threads %w", err)  // --threads "0,2": 0: want at least 1
type Error struct {
	List string // as typed
	Err  error
}

func (e *Error) Error() string { return strconv.Quote(e.List) + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// isSep reports a separator: a comma or, as RonDB writes lists, a
// semicolon. No item holds either, so one list may use both.
func isSep(r rune) bool { return r == ',' || r == ';' }

// Items splits s into its items, blanks trimmed.
func Items(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, &Error{List: s, Err: errors.New("empty list")}
	}
	var items []string
	for rest := s; ; {
		i := strings.IndexFunc(rest, isSep)
		it := rest
		if i >= 0 {
			it = rest[:i]
		}
		if it = strings.TrimSpace(it); it == "" {
			return nil, &Error{List: s, Err: errors.New("empty element")}
		}
		items = append(items, it)
		if i < 0 {
			return items, nil
		}
		rest = rest[i+1:]
	}
}

// Range reads an integer item: "N" or an inclusive range "LO-HI", both
// non-negative decimal numbers below 2^31 (no sign, so "-1" is refused
// rather than read as a range). noun names a number in errors ("CPU").
func Range(item, noun string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(item, "-")
	if isRange && strings.TrimSpace(a) == "" {
		return 0, 0, errors.New("a negative number or a range with no start (ranges read LO-HI, as 1-4)")
	}
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
		return 0, 0, errors.New("end before start")
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

// inItem names the item err is about, where the list holds more than that
// item and err does not quote it already: `"1,3-1": 3-1: end before start`,
// but `"0": want at least 1`.
func inItem(list, item string, err error) error {
	if item == strings.TrimSpace(list) || strings.Contains(err.Error(), strconv.Quote(item)) {
		return err
	}
	return fmt.Errorf("%s: %w", item, err)
}

// Ints reads a list of integers, ranges expanded in order, each at least
// least: "1;2;4", "0-3", "1,8-10". Duplicates and order are kept, as a
// sweep runs them.
func Ints(s string, least int) ([]int, error) {
	items, err := Items(s)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, it := range items {
		lo, hi, err := Range(it, "number")
		if err != nil {
			return nil, &Error{List: s, Err: inItem(s, it, err)}
		}
		if lo < least {
			return nil, &Error{List: s, Err: inItem(s, it, fmt.Errorf("want at least %d", least))}
		}
		if hi-lo >= MaxLen-len(out) {
			return nil, &Error{List: s, Err: fmt.Errorf("more than %d values", MaxLen)}
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
		return nil, err
	}
	out := make([]time.Duration, len(items))
	for i, it := range items {
		d, err := time.ParseDuration(it)
		if err != nil || d < 0 {
			return nil, &Error{List: s, Err: fmt.Errorf("bad duration %q (want 0 or more, such as 20us or 1ms)", it)}
		}
		out[i] = d
	}
	return out, nil
}

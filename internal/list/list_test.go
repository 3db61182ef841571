package list

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/testmain"
)

func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "list", Goroutines: true}))
}

func TestInts(t *testing.T) {
	for _, tc := range []struct {
		in    string
		least int
		want  []int
		err   string
	}{
		{"1", 1, []int{1}, ""},
		{"1,2,4", 1, []int{1, 2, 4}, ""},
		{"1;2;4;8;12;16;24;32;48;64;96;112;128", 1, []int{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 112, 128}, ""},
		{" 1 , 2 ", 1, []int{1, 2}, ""},
		{" 8 ; 16 ", 1, []int{8, 16}, ""},
		{"0-3", 0, []int{0, 1, 2, 3}, ""},
		{"1,8-10", 1, []int{1, 8, 9, 10}, ""},
		{" 0 - 1 ; 3 ", 0, []int{0, 1, 3}, ""},
		{"4,1,4", 1, []int{4, 1, 4}, ""}, // a sweep runs what it is given, in order
		{"5-5", 0, []int{5}, ""},
		{"", 1, nil, "empty list"},
		{"  ", 1, nil, "empty list"},
		{"1,,2", 1, nil, "empty element"},
		{"1,", 1, nil, "empty element"},
		{";1", 1, nil, "empty element"},
		{"1;2,3", 1, []int{1, 2, 3}, ""},
		{"1,2;3", 1, []int{1, 2, 3}, ""},
		{"1-2;4,6-7", 1, []int{1, 2, 4, 6, 7}, ""},
		{"1;,2", 1, nil, "empty element"},
		{"0", 1, nil, "want at least 1"},
		{"0-3", 1, nil, "want at least 1"},
		{"1,0-3", 1, nil, "0-3: want at least 1"},
		{"x", 1, nil, `bad number "x"`},
		{"-1", 0, nil, "a negative number or a range with no start"},
		{"+1", 0, nil, `bad number "+1"`},
		{"1-", 0, nil, `bad number ""`},
		{"0x1", 0, nil, `bad number "0x1"`},
		{"1-2-3", 0, nil, `bad number "2-3"`},
		{"3-1", 0, nil, "end before start"},
		{"1,3-1", 0, nil, "3-1: end before start"},
		{"99999999999999999999", 0, nil, `bad number "99999999999999999999"`},
		{"0-2147483647", 0, nil, "more than 65536 values"},
		{"0-65535", 0, nil, ""},
		{"0-65535,1", 0, nil, "more than 65536 values"},
	} {
		got, err := Ints(tc.in, tc.least)
		if tc.err != "" {
			var le *Error
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &le) || le.List != tc.in ||
				!strings.HasPrefix(err.Error(), strconv.Quote(tc.in)+": ") {
				t.Errorf("Ints(%q, %d) = %v, %v; want an error containing %q", tc.in, tc.least, got, err, tc.err)
			}
			continue
		}
		if err != nil || (tc.want != nil && !slices.Equal(got, tc.want)) {
			t.Errorf("Ints(%q, %d) = %v, %v; want %v", tc.in, tc.least, got, err, tc.want)
		}
	}
}

func TestDurations(t *testing.T) {
	got, err := Durations("0,20us,100us,1ms")
	want := []time.Duration{0, 20 * time.Microsecond, 100 * time.Microsecond, time.Millisecond}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Durations = %v, %v; want %v", got, err, want)
	}
	if got, err := Durations("1ms; 2ms"); err != nil || !slices.Equal(got, []time.Duration{time.Millisecond, 2 * time.Millisecond}) {
		t.Errorf("Durations(1ms; 2ms) = %v, %v", got, err)
	}
	if got, err := Durations("1ms,2ms;3ms"); err != nil || len(got) != 3 {
		t.Errorf("Durations(1ms,2ms;3ms) = %v, %v", got, err)
	}
	for _, bad := range []string{"-1ms", "20", "1ms;;2ms", "fast", "1ms-2ms", ""} {
		if got, err := Durations(bad); err == nil {
			t.Errorf("Durations(%q) = %v, want an error", bad, got)
		}
	}
}

// FuzzInts: whatever the input, an accepted list is non-empty, bounded,
// at least least, and its items and Items' agree.
func FuzzInts(f *testing.F) {
	for _, s := range []string{"1,2,4", "1;2;4", " 1 ", ",", ";;", "a,b;c", "", "0-3", "3-1", "1-2-3", "0-2147483647", "-", "1;2,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, ierr := Items(s)
		if ierr == nil {
			for _, it := range items {
				if it == "" || strings.ContainsAny(it, ",;") || it != strings.TrimSpace(it) {
					t.Fatalf("Items(%q): bad item %q", s, it)
				}
			}
		}
		got, err := Ints(s, 1)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) || le.List != s {
				t.Fatalf("Ints(%q): error %v does not name the list", s, err)
			}
			return
		}
		if ierr != nil {
			t.Fatalf("Ints(%q) = %v but Items refused it: %v", s, got, ierr)
		}
		if len(got) == 0 || len(got) > MaxLen || len(got) < len(items) {
			t.Fatalf("Ints(%q) gave %d values for %d items", s, len(got), len(items))
		}
		for _, n := range got {
			if n < 1 {
				t.Fatalf("Ints(%q, 1) gave %d", s, n)
			}
		}
	})
}

package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseInts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  string
	}{
		{"1", []int{1}, ""},
		{"1,2,4", []int{1, 2, 4}, ""},
		{"1;2;4;8;12;16;24;32;48;64;96;112;128", []int{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 112, 128}, ""},
		{" 1 , 2 ", []int{1, 2}, ""},
		{"", nil, "empty list"},
		{"1,,2", nil, "empty item"},
		{"1,", nil, "empty item"},
		{"0", nil, `bad item "0"`},
		{"x", nil, `bad item "x"`},
	} {
		got, err := parseInts("threads", tc.in, 1)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--threads") {
				t.Errorf("parseInts(%q) error %v, want %q naming the flag", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseInts(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestParseDurations(t *testing.T) {
	got, err := parseDurations("service-time", "0,20us,100us,1ms")
	want := []time.Duration{0, 20 * time.Microsecond, 100 * time.Microsecond, time.Millisecond}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"-1ms", "20", "1ms;;2ms", "fast"} {
		if _, err := parseDurations("service-time", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzSplitList(f *testing.F) {
	for _, s := range []string{"1,2,4", "1;2;4", " 1 ", ",", ";;", "a,b;c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, err := splitList("x", s)
		if err != nil {
			return
		}
		for _, it := range items {
			if it == "" || strings.ContainsAny(it, ",;") || it != strings.TrimSpace(it) {
				t.Errorf("%q: bad item %q", s, it)
			}
		}
	})
}

// A RonDB thread list reads as it is written in autobench.conf.
func Example_parseInts() {
	threads, err := parseInts("threads", "1;2;4;8;12;16", 1)
	fmt.Println(threads, err)
	_, err = parseInts("threads", "1,0", 1)
	fmt.Println(err)
	// Output:
	// [1 2 4 8 12 16] <nil>
	// --threads "1,0": bad item "0" (want an integer >= 1)
}

package main

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "", want: nil},
		{in: "0", want: []int{0}},
		{in: "0-3,8", want: []int{0, 1, 2, 3, 8}},
		{in: "0;2", want: []int{0, 2}},
		{in: "3-1", bad: true},
		{in: "x", bad: true},
		{in: "-1", bad: true},
		{in: "70000", bad: true},
		{in: ",", bad: true},
	} {
		got, err := parseCPUList(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("parseCPUList(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		bad  bool
	}{
		{in: "65536", want: 65536},
		{in: "64K", want: 64 << 10},
		{in: "1m", want: 1 << 20},
		{in: "4KiB", want: 4 << 10},
		{in: "1G", want: 1 << 30},
		{in: "2G", bad: true},
		{in: "0", bad: true},
		{in: "-5", bad: true},
		{in: "K", bad: true},
	} {
		got, err := parseBytes(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("parseBytes(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// TestUsageErrors: every flag value that makes no sense is an error that
// names the flag, and a usage error (exit status 2).
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "threads", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "engine"},
		{[]string{"--lock", "big", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "lock"},
		{[]string{"--buffer", "lots", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--buffer"},
		{[]string{"--cpus", "a-b", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--cpus"},
		{[]string{"--workers", "0", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--workers"},
		{[]string{"--engine", "goroutine", "--spin", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "spin"},
		{[]string{"TCP4-LISTEN:x", "tcp:127.0.0.1:1"}, `bad port "x"`},
		{[]string{"tcp:127.0.0.1:0"}, "LISTEN CONNECT"},
	} {
		var out, errb bytes.Buffer
		err := run(tc.args, &out, &errb)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want a usage error naming %q", tc.args, err, tc.want)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3,8", "0;2", "all", "1-", "-", "0-65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := parseCPUList(s)
		if err == nil && len(cpus) > 1<<16 {
			t.Fatalf("%q: %d CPUs", s, len(cpus))
		}
		for _, c := range cpus {
			if c < 0 || c >= 1<<16 {
				t.Fatalf("%q: CPU %d", s, c)
			}
		}
	})
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"64K", "1G", "512", "9999999999M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := parseBytes(s); err == nil && (n <= 0 || n > 1<<30) {
			t.Fatalf("%q: %d", s, n)
		}
	})
}

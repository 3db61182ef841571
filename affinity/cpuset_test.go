package affinity

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseListFor(t *testing.T) {
	online := NewCPUSet(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12)
	tests := []struct {
		in   string
		want []int
		str  string // canonical form
	}{
		{"0", []int{0}, "0"},
		{"0-3,8", []int{0, 1, 2, 3, 8}, "0-3,8"},
		{"0;2", []int{0, 2}, "0,2"},
		{"0;2;4-5", []int{0, 2, 4, 5}, "0,2,4-5"},
		{" 0 - 1 , 3 ", []int{0, 1, 3}, "0-1,3"},
		{"8,3,3,0-1", []int{0, 1, 3, 8}, "0-1,3,8"},
		{"5-5", []int{5}, "5"},
		{"0,1,2", []int{0, 1, 2}, "0-2"},
		{"12,8-9", []int{8, 9, 12}, "8-9,12"},
		{"all", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12}, "0-9,12"},
		{" all ", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12}, "0-9,12"},
	}
	for _, tt := range tests {
		got, err := ParseListFor(tt.in, online)
		if err != nil {
			t.Errorf("ParseListFor(%q): %v", tt.in, err)
			continue
		}
		if !slices.Equal(got.CPUs(), tt.want) || got.String() != tt.str {
			t.Errorf("ParseListFor(%q) = %v %q, want %v %q", tt.in, got.CPUs(), got, tt.want, tt.str)
		}
		back, err := ParseListFor(got.String(), online)
		if err != nil || !back.Equal(got) {
			t.Errorf("round trip of %q via %q = %v, %v", tt.in, got, back, err)
		}
	}
}

func TestParseListForErrors(t *testing.T) {
	online := NewCPUSet(0, 1, 2, 3)
	tests := []struct {
		in, msg   string
		notOnline bool
	}{
		{"", `"": empty list`, false},
		{"  ", `empty list`, false},
		{"0,,1", `"0,,1": empty element`, false},
		{"0,", `empty element`, false},
		{";1", `empty element`, false},
		{"x", `bad CPU "x"`, false},
		{"0-3,x", `"0-3,x": bad CPU "x"`, false},
		{"-1", "a negative number or a range with no start", false},
		{"+1", `bad CPU "+1"`, false},
		{"1-", `bad CPU ""`, false},
		{"0x1", `bad CPU "0x1"`, false},
		{"1-2-3", `bad CPU "2-3"`, false},
		{"3-1", `end before start`, false},
		{"99999999999999999999", `bad CPU "99999999999999999999"`, false},
		{"4", `"4": CPU 4 not online (online 0-3)`, true},
		{"2-9", `CPU 4 not online (online 0-3)`, true},
		{"0-2147483647", `CPU 4 not online`, true},
		{"ALL", `bad CPU "ALL"`, false},
	}
	for _, tt := range tests {
		_, err := ParseListFor(tt.in, online)
		if err == nil {
			t.Errorf("ParseListFor(%q) succeeded, want error %q", tt.in, tt.msg)
			continue
		}
		if !strings.HasPrefix(err.Error(), strconv.Quote(tt.in)+": ") || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseListFor(%q) error %q, want it to contain %q", tt.in, err, tt.msg)
		}
		if errors.Is(err, ErrNotOnline) != tt.notOnline {
			t.Errorf("ParseListFor(%q) error %q: errors.Is(ErrNotOnline) = %v", tt.in, err, !tt.notOnline)
		}
	}
	if _, err := ParseListFor("all", CPUSet{}); err == nil {
		t.Error(`ParseListFor("all") with nothing online succeeded`)
	}
}

func TestParseListOnline(t *testing.T) {
	online, err := OnlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	all, err := ParseList("all")
	if err != nil || !all.Equal(online) {
		t.Fatalf(`ParseList("all") = %v, %v; want %v`, all, err, online)
	}
	beyond := online.cpus[online.Len()-1] + 1
	if _, err := ParseList(NewCPUSet(beyond).String()); !errors.Is(err, ErrNotOnline) {
		t.Errorf("ParseList(%d) error %v, want ErrNotOnline", beyond, err)
	}
}

func TestCPUSet(t *testing.T) {
	s := NewCPUSet(5, 1, 3, 1)
	if s.Len() != 3 || !s.Contains(3) || s.Contains(2) || s.Contains(-1) {
		t.Errorf("NewCPUSet(5, 1, 3, 1) = %v: Len %d, Contains(3) %v, Contains(2) %v", s, s.Len(), s.Contains(3), s.Contains(2))
	}
	cpus := s.CPUs()
	cpus[0] = 99
	if s.Contains(99) {
		t.Error("CPUs() shares the set's memory")
	}
	if (CPUSet{}).String() != "" || !(CPUSet{}).Equal(NewCPUSet()) {
		t.Error("the zero CPUSet is not the empty set")
	}
	if text, _ := s.MarshalText(); string(text) != "1,3,5" {
		t.Errorf("MarshalText = %q, want 1,3,5", text)
	}
	defer func() {
		if recover() == nil {
			t.Error("NewCPUSet(-1) did not panic")
		}
	}()
	NewCPUSet(-1)
}

func FuzzParseListFor(f *testing.F) {
	for _, s := range []string{"0", "0-3,8", "0;2", " 1 - 2 ; 40 ", "all", "3-1", "0,,1", "-", "0-2147483647", "63,0-31"} {
		f.Add(s)
	}
	online := NewCPUSet(slices.Concat(seq(0, 31), seq(40, 47), []int{63})...)
	f.Fuzz(func(t *testing.T, s string) {
		set, err := ParseListFor(s, online)
		if err != nil {
			return
		}
		if set.Len() == 0 {
			t.Fatalf("ParseListFor(%q) gave an empty set without error", s)
		}
		for _, cpu := range set.cpus {
			if !online.Contains(cpu) {
				t.Fatalf("ParseListFor(%q) = %v holds offline CPU %d", s, set, cpu)
			}
		}
		if !slices.IsSorted(set.cpus) || len(slices.Compact(set.CPUs())) != set.Len() {
			t.Fatalf("ParseListFor(%q) = %v: not sorted and unique", s, set.cpus)
		}
		back, err := ParseListFor(set.String(), online)
		if err != nil || !back.Equal(set) {
			t.Fatalf("ParseListFor(%q) = %v, which reads back as %v, %v", s, set, back, err)
		}
	})
}

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

// ParseCPUs is ParseList's set as CPU numbers, with ParseList's errors.
func TestParseCPUs(t *testing.T) {
	if cpus, err := ParseCPUs(" 0 ;0"); err != nil || !slices.Equal(cpus, []int{0}) {
		t.Errorf("ParseCPUs(0) = %v, %v; want [0]", cpus, err)
	}
	if cpus, err := ParseCPUs("x"); err == nil || cpus != nil || !strings.HasPrefix(err.Error(), `"x": `) {
		t.Errorf("ParseCPUs(x) = %v, %v; want ParseList's error", cpus, err)
	}
}

func TestCPUSetWithout(t *testing.T) {
	for _, c := range []struct {
		s      CPUSet
		others []CPUSet
		want   string
	}{
		{NewCPUSet(0, 1, 2, 3), []CPUSet{NewCPUSet(0), NewCPUSet(2, 9)}, "1,3"},
		{NewCPUSet(0, 1), nil, "0-1"},
		{NewCPUSet(0, 1), []CPUSet{NewCPUSet(0, 1)}, ""},
		{CPUSet{}, []CPUSet{NewCPUSet(1)}, ""},
	} {
		if got := c.s.Without(c.others...).String(); got != c.want {
			t.Errorf("%s without %v: %q, want %q", c.s, c.others, got, c.want)
		}
	}
}

package spell

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"runs", "round-requests", "threads", "trace", "time", "placement", "paths", "proxy"}
	for typed, want := range map[string]string{
		"run": "runs", "runs": "runs", "round": "round-requests", "thread": "threads", "placment": "placement",
		"path": "paths", "prxy": "proxy", "tiem": "time", "xyz": "", "p": "", "": "",
		"t": "", // trace, time, threads: none nearer
	} {
		if got := Nearest(typed, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", typed, got, want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"ab", "ba", 1}, // a swap is one edit
		{"kitten", "sitting", 3},
		{"THREDS", "THREADS", 1},
		{"SERVER_CPUS", "SERVER_CPUS", 0},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Add("ab", "ba")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		d := Distance(a, b)
		if d > max(len(a), len(b)) || d < max(len(a)-len(b), len(b)-len(a)) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
		if (d == 0) != (a == b) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
	})
}

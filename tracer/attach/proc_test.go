package attach

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestStrays: the children (and grandchildren) of followed processes, and
// the processes of the comm, that are not followed yet.
func TestStrays(t *testing.T) {
	root := t.TempDir()
	for _, p := range []struct{ pid, stat string }{
		{"100", "100 (socat) S 1 100"},
		{"101", "101 (socat) S 100 100"},   // forked unseen
		{"102", "102 (sh) S 101 100"},      // its child
		{"103", "103 (socat) S 1 103"},     // another socat
		{"104", "104 (a b) (c) S 100 104"}, // a comm of spaces and parentheses
		{"200", "200 (pongd) S 1 200"},     // nothing of the target's
	} {
		if err := os.MkdirAll(filepath.Join(root, p.pid), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p.pid, "stat"), []byte(p.stat+" 0 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func(r string) { procRoot = r }(procRoot)
	procRoot = root
	followed := map[int]bool{100: true}
	if got, want := strays(followed, ""), []int{101, 102, 104}; !slices.Equal(got, want) {
		t.Errorf("strays of 100: %v, want %v", got, want)
	}
	if got, want := strays(followed, "socat"), []int{101, 102, 103, 104}; !slices.Equal(got, want) {
		t.Errorf("strays of 100 and comm socat: %v, want %v", got, want)
	}
}

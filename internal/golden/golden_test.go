package golden

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "golden"}))
}

// recorder is a testing.TB that notes a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/out.txt", []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file, got string
		fail            bool
	}{
		{"equal", "out.txt", "same\n", false},
		{"one byte differs", "out.txt", "same \n", true},
		{"no file", "missing.txt", "x", true},
	} {
		r := &recorder{TB: t}
		Check(r, c.file, []byte(c.got))
		if r.failed != c.fail {
			t.Errorf("%s: failed %v, want %v", c.name, r.failed, c.fail)
		}
	}
}

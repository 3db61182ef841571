package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for success
	}{
		{"file in a dir", CheckOutputFile("hgrm", filepath.Join(dir, "x.hgrm")), ""},
		{"missing dir", CheckOutputFile("hgrm", "/nonexistent/x"), "--hgrm /nonexistent/x: cannot create files in /nonexistent: no such file or directory"},
		{"a directory", CheckOutputFile("hgrm", dir), "is a directory"},
		{"new dir", CheckOutputDir("out", filepath.Join(dir, "a", "b")), ""},
		{"/proc", CheckOutputDir("out", "/proc/x"), "--out /proc/x: "},
		{"a file", CheckOutputDir("out", filepath.Join(plain, "sub")), "--out "},
	} {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: %v", tc.name, tc.err)
		case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) || !IsUsage(tc.err)):
			t.Errorf("%s: %v, want a usage error containing %q", tc.name, tc.err, tc.want)
		}
	}
	if os.Geteuid() != 0 { // root writes anywhere
		if err := CheckOutputFile("hgrm", filepath.Join(ro, "x")); err == nil {
			t.Error("a file in a read-only directory passed the check")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.hgrm")); !os.IsNotExist(err) {
		t.Errorf("the check left the file itself behind: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "a", "b")); len(ents) != 0 {
		t.Errorf("the probe file was left behind: %v", ents)
	}
}

package locate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A program next to the executable wins over one on PATH; a directory or
// a file without an execute bit is not a program.
func TestProgramNextToExecutable(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(exe) // go test's own temp dir for this binary
	mine := filepath.Join(dir, "hoplat-locate-probe")
	if err := os.WriteFile(mine, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(mine) })
	onPath := t.TempDir()
	if err := os.WriteFile(filepath.Join(onPath, "hoplat-locate-probe"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", onPath)
	if p, err := Program("hoplat-locate-probe"); err != nil || p != mine {
		t.Errorf("Program = %q, %v; want %q (next to the executable)", p, err, mine)
	}
	if p, err := Find("hoplat-locate-probe"); err != nil || p != filepath.Join(onPath, "hoplat-locate-probe") {
		t.Errorf("Find = %q, %v; want the one on PATH", p, err)
	}

	if err := os.Chmod(mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := Program("hoplat-locate-probe"); err != nil || p == mine {
		t.Errorf("Program = %q, %v; want PATH's, not the file without an execute bit", p, err)
	}
}

func TestNotFound(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, f := range []func(string) (string, error){Find, Program} {
		if p, err := f("hoplat-no-such-program"); !errors.Is(err, ErrNotFound) || p != "" {
			t.Errorf("= %q, %v; want ErrNotFound", p, err)
		}
	}
}

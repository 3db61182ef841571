package locate

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNotFound is wrapped by the errors of Find and Program.
var ErrNotFound = errors.New("not found")

// SbinDirs are searched after PATH: mariadbd and haproxy live there, and a
// non-root user's PATH often lacks them.
var SbinDirs = []string{"/usr/sbin", "/usr/local/sbin", "/sbin"}

// Find returns the path of the program name, from PATH or SbinDirs.
func Find(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range SbinDirs {
		p := filepath.Join(d, name)
		if executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("locate: %s: %w on PATH or in %v", name, ErrNotFound, SbinDirs)
}

// Program returns the path of name next to the running executable first —
// so that bin/hopbench drives the bin/pongd built with it, not an older one
// on PATH — and otherwise as Find does.
func Program(name string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), name); executable(p) {
			return p, nil
		}
	}
	p, err := Find(name)
	if err != nil {
		return "", fmt.Errorf("locate: %s: %w next to %s, on PATH or in %v", name, ErrNotFound, filepath.Base(os.Args[0]), SbinDirs)
	}
	return p, nil
}

// executable reports whether p is a regular file someone may execute.
func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

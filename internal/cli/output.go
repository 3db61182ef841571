package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CheckOutputFile checks, before a run, that a file can be created at path
// (its directory exists and takes new files, and path is not a directory),
// so that a typo costs nothing rather than the whole run. The check
// creates and removes a temp file beside path; path itself is not touched.
// The error is a usage error naming flag.
func CheckOutputFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return Usage(fmt.Errorf("--%s %s: is a directory", flag, path))
	}
	if err := probe(filepath.Dir(path)); err != nil {
		return Usage(fmt.Errorf("--%s %s: %w", flag, path, err))
	}
	return nil
}

// CheckOutputDir creates dir (and its parents) when missing and checks
// that it takes new files, before a run. The error is a usage error
// naming flag.
func CheckOutputDir(flag, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Usage(fmt.Errorf("--%s %s: %w", flag, dir, err))
	}
	if err := probe(dir); err != nil {
		return Usage(fmt.Errorf("--%s %s: %w", flag, dir, err))
	}
	return nil
}

// probe creates and removes a file in dir: only that proves it writable
// (permission bits say nothing of read-only mounts, /proc or quotas).
func probe(dir string) error {
	f, err := os.CreateTemp(dir, ".hoplat-probe-")
	if err != nil {
		// The probe's random name would only puzzle: name the directory.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot create files in %s: %w", dir, err)
	}
	name := f.Name()
	err = f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

// Package replace writes a file whole or not at all: the new content goes
// to a temporary file beside it, renamed over it once written, so that a
// reader (or a run stopped midway) never sees half a file.
package replace

import (
	"io"
	"os"
	"path/filepath"
)

// File replaces path with what write writes. On an error path is left as
// it was and no temporary file remains.
func File(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	werr := write(tmp)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

package load

import (
	"fmt"
	"io"

	"github.com/hoplat/hoplat/pingpong/report"
)

// A Reporter writes a finished measurement in one format.
type Reporter func(io.Writer) error

// ReporterFor returns the reporter of r in the named format: text, json or
// csv, as --format names them.
func ReporterFor(format string, r report.Report) (Reporter, error) {
	switch format {
	case "text":
		return func(w io.Writer) error { return WriteText(w, r) }, nil
	case "json":
		return func(w io.Writer) error { return WriteJSON(w, r) }, nil
	case "csv":
		return func(w io.Writer) error { return WriteCSV(w, r) }, nil
	}
	return nil, fmt.Errorf("results: unknown format %q (want text, json or csv)", format)
}

package present

import (
	"io"
	"path/filepath"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/page"
	"github.com/hoplat/hoplat/present/phrase"
)

// Words sets the sentences rep's JSON carries from the typed findings
// the analysis and the driver left in it (phrase.Fill): a run's report
// gets them once it is complete, and every writer of a report fills them
// first, so that a report written from any entry says them. A report
// read back from JSON keeps its own.
func Words(rep *hop.Report) { phrase.Fill(rep) }

// Write prints a hopbench run in the named format, as --format names it:
// json, csv, or text in the given style (Brief by default, Full for
// --verbose, Wide for --wide). A thread sweep's text also prints
// mysql-proxy's table; a workload sweep prints its own table.
func Write(w io.Writer, format string, style TextStyle, rep *hop.Report) error {
	Words(rep)
	switch format {
	case "json":
		return WriteJSON(w, rep)
	case "csv":
		return WriteCSV(w, rep)
	}
	if rep.Sweep != nil {
		return WriteSweep(w, rep.Sweep)
	}
	text := WriteBrief
	switch style {
	case Full:
		text = WriteText
	case Wide:
		text = WriteWideText
	}
	if err := text(w, rep); err != nil {
		return err
	}
	return WriteProxyTable(w, rep)
}

// WriteDir fills dir with every file of the run (JSON, CSV, text, one
// .hgrm per path, plots) and report.html, and returns the page's path.
func WriteDir(dir string, rep *hop.Report) (string, error) {
	if err := WriteFiles(dir, rep); err != nil {
		return "", err
	}
	file := filepath.Join(dir, "report.html")
	if err := page.WriteFile(file, rep); err != nil {
		return "", err
	}
	return file, nil
}

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/hoplat/hoplat/report"
	"github.com/hoplat/hoplat/results/hop"
)

// version is set at link time by make build (-X main.version=...); empty,
// the module's build information stands in.
var version string

// buildVersion is hoplat's version as the report names it: the linked-in
// one, else the module version and VCS revision Go recorded.
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += " (modified)"
			}
		}
	}
	return v
}

func write(w io.Writer, format string, wide bool, rep *hop.Report) error {
	switch format {
	case "json":
		return hop.WriteJSON(w, rep)
	case "csv":
		return hop.WriteCSV(w, rep)
	}
	if rep.Sweep != nil {
		return hop.WriteSweep(w, rep.Sweep)
	}
	text := hop.WriteText
	if wide {
		text = hop.WriteWideText
	}
	if err := text(w, rep); err != nil {
		return err
	}
	// A thread sweep also prints mysql-proxy's table (proxytable.go).
	return hop.WriteProxyTable(w, rep)
}

// writeOut fills dir with every file of the run and report.html, and says
// where they went: on stderr always, and under the text report.
func writeOut(dir, format string, rep *hop.Report) error {
	if err := hop.WriteDir(dir, rep); err != nil {
		return err
	}
	page := filepath.Join(dir, "report.html")
	if err := report.WriteFile(page, rep); err != nil {
		return err
	}
	if format == "text" {
		fmt.Fprintf(os.Stdout, "\nreport: %s (one self-contained page to open or mail)\nfiles:  %s (JSON, CSV, text, one .hgrm per path, plots)\n", page, dir)
	}
	fmt.Fprintf(os.Stderr, "hopbench: wrote %s and the run's files in %s\n", page, dir)
	return nil
}

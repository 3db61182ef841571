package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present"
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

// writeOut fills dir with every file of the run and report.html, and says
// where they went: on stderr always, and under the text report.
func writeOut(dir, format string, rep *hop.Report) error {
	page, err := present.WriteDir(dir, rep)
	if err != nil {
		return err
	}
	if format == "text" {
		fmt.Fprintf(os.Stdout, "\nreport: %s (one self-contained page to open or mail)\nfiles:  %s (JSON, CSV, text, one .hgrm per path, plots)\n", page, dir)
	}
	fmt.Fprintf(os.Stderr, "hopbench: wrote %s and the run's files in %s\n", page, dir)
	return nil
}

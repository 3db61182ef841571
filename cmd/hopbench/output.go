package main

import (
	"io"

	"github.com/hoplat/hoplat/results/hop"
)

func write(w io.Writer, format string, rep *hop.Report) error {
	switch format {
	case "json":
		return hop.WriteJSON(w, rep)
	case "csv":
		return hop.WriteCSV(w, rep)
	}
	if rep.Sweep != nil {
		return hop.WriteSweep(w, rep.Sweep)
	}
	if err := hop.WriteText(w, rep); err != nil {
		return err
	}
	// A thread sweep also prints mysql-proxy's table (proxytable.go).
	return hop.WriteProxyTable(w, rep)
}

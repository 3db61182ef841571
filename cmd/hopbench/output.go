package main

import (
	"io"

	"github.com/hoplat/hoplat/driver"
)

func write(w io.Writer, format string, rep *driver.Report) error {
	switch format {
	case "json":
		return driver.WriteJSON(w, rep)
	case "csv":
		return driver.WriteCSV(w, rep)
	}
	return driver.WriteText(w, rep)
}

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

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

// writeOut fills dir with the report in every format, one .hgrm per path
// result, and the plots.
func writeOut(dir string, rep *driver.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	files := []struct {
		name  string
		write func(io.Writer, *driver.Report) error
	}{
		{"report.json", driver.WriteJSON},
		{"report.csv", driver.WriteCSV},
		{"report.txt", driver.WriteText},
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, rep) }); err != nil {
			return err
		}
	}
	for _, p := range rep.Paths {
		if p.Hist == nil {
			continue
		}
		name := filepath.Join(dir, driver.FileName(p, rep.Paths)+".hgrm")
		if err := writeFile(name, func(w io.Writer) error { return driver.WriteHgrm(w, p.Hist) }); err != nil {
			return err
		}
	}
	return writePlots(dir, rep)
}

func writeFile(name string, fill func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}

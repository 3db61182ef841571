package results

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", path, got)
	}
}

func TestGolden(t *testing.T) {
	r := synthReport()
	for _, c := range []struct {
		file   string
		format string
	}{
		{"report.txt", "text"},
		{"report.json", "json"},
		{"report.csv", "csv"},
	} {
		t.Run(c.format, func(t *testing.T) {
			rep, err := ReporterFor(c.format, r)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := rep(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, c.file, b.Bytes())
		})
	}
	t.Run("hgrm", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteHgrm(&b, AnalyzeStep(r.Steps[0]).LatencyHist); err != nil {
			t.Fatal(err)
		}
		golden(t, "latency.hgrm", b.Bytes())
	})
}

func TestReporterForUnknown(t *testing.T) {
	if _, err := ReporterFor("xml", Report{}); err == nil {
		t.Error(`ReporterFor("xml"): want an error`)
	}
}

package load

import (
	"bytes"
	"testing"

	"github.com/hoplat/hoplat/internal/golden"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/present/hgrm"
)

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
			golden.Check(t, c.file, b.Bytes())
		})
	}
	t.Run("hgrm", func(t *testing.T) {
		var b bytes.Buffer
		if err := hgrm.Write(&b, report.AnalyzeStep(r.Steps[0]).LatencyHist); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "latency.hgrm", b.Bytes())
	})
}

func TestReporterForUnknown(t *testing.T) {
	if _, err := ReporterFor("xml", report.Report{}); err == nil {
		t.Error(`ReporterFor("xml"): want an error`)
	}
}

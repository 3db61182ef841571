package load

import (
	"testing"

	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/stats"
)

// TestJSONHistogram checks the contract's results[i].histogram: it decodes
// to the kept runs' merged latency histogram, so rounds merge exactly.
func TestJSONHistogram(t *testing.T) {
	r := synthReport()
	doc := decodeReport(t, r)
	for i, res := range doc["results"].([]any) {
		enc, ok := res.(map[string]any)["histogram"].(string)
		if !ok || enc == "" {
			t.Fatalf("results[%d].histogram = %v, want the encoded histogram", i, res.(map[string]any)["histogram"])
		}
		got, err := stats.DecodeHistogram(enc)
		if err != nil {
			t.Fatal(err)
		}
		want := report.AnalyzeStep(r.Steps[i]).LatencyHist
		if got.Count() != want.Count() {
			t.Errorf("results[%d]: decoded %d values, want %d", i, got.Count(), want.Count())
		}
		for _, q := range []float64{50, 99, 99.9} {
			if g, w := got.Quantile(q), want.Quantile(q); g != w {
				t.Errorf("results[%d]: p%v = %d after decoding, want %d", i, q, g, w)
			}
		}
	}
}

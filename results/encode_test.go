package results

import (
	"encoding/base64"
	"testing"
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
		got, err := DecodeHistogram(enc)
		if err != nil {
			t.Fatal(err)
		}
		want := AnalyzeStep(r.Steps[i]).LatencyHist
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

func TestDecodeHistogramRejectsGarbage(t *testing.T) {
	for _, s := range []string{"", "not base64!", "AAAA"} {
		if _, err := DecodeHistogram(s); err == nil {
			t.Errorf("DecodeHistogram(%q) = nil error, want one", s)
		}
	}
}

func FuzzDecodeHistogram(f *testing.F) {
	h := NewHistogram()
	h.Record(1000)
	enc, _ := h.Encode()
	f.Add(enc)
	f.Add("HISTFAAAAB54nJNpmSzMwMDAxAABzFCaEUzOmNZg")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := DecodeHistogram(s)
		if err != nil {
			return
		}
		if _, err := h.Encode(); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
	})
}

// TestDecodeHistogramTwiceEncoded reads the form hoprelay's --stats files
// held before they used Encode: the base64 text base64-encoded once more.
func TestDecodeHistogramTwiceEncoded(t *testing.T) {
	h := NewHistogram()
	for _, v := range []int64{24_000, 25_000, 26_000} {
		h.Record(v)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeHistogram(base64.StdEncoding.EncodeToString([]byte(enc)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Count() != 3 || got.Quantile(50) != h.Quantile(50) {
		t.Errorf("decoded %d values, p50 %d; want 3, %d", got.Count(), got.Quantile(50), h.Quantile(50))
	}
}

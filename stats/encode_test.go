package stats

import (
	"encoding/base64"
	"testing"
)

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

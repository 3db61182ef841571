package stats

import (
	"encoding/base64"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Encode returns h in HdrHistogram's V2 compressed encoding as the text
// hdrhistogram-go's Encode writes (already base64, std alphabet) and its
// Decode reads: the "histogram" field of a JSON report, which a driver
// decodes and merges across rounds.
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("stats: encode histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram reads what Encode wrote (or any V2 compressed
// HdrHistogram in base64) into a Histogram of the usual range; values
// outside it are clamped as Record clamps them. Text base64-encoded once
// more, as hoprelay's --stats files held before they used Encode, is read
// too.
func DecodeHistogram(s string) (*Histogram, error) {
	d, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		inner, err2 := base64.StdEncoding.DecodeString(s)
		if err2 != nil {
			return nil, fmt.Errorf("stats: decode histogram %.40q: %w", s, err)
		}
		if d, err2 = hdrhistogram.Decode(inner); err2 != nil {
			return nil, fmt.Errorf("stats: decode histogram %.40q: %w", s, err)
		}
	}
	h := NewHistogram()
	for _, b := range d.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := h.clamp(b.To)
		if err := h.h.RecordValues(v, b.Count); err != nil {
			return nil, fmt.Errorf("stats: decode histogram: %w", err)
		}
	}
	return h, nil
}

package tracer

import (
	"bytes"
	"testing"

	"github.com/hoplat/hoplat/tracer/tracertest"
)

// checkWaterfall fails t unless data passes tracertest.CheckWaterfall.
func checkWaterfall(t testing.TB, data []byte) (slices, flows int) {
	t.Helper()
	slices, flows, err := tracertest.CheckWaterfall(data)
	if err != nil {
		t.Fatal(err)
	}
	return slices, flows
}

func TestWaterfall(t *testing.T) {
	var w Waterfall
	n := 0
	for name, ev := range map[string][]Event{"direct": directPacked(4), "spread": relaySpread(4), "packed": relayPacked(4)} {
		for _, r := range Assemble(Config{Components: components}, ev, 5) {
			w.Add(name, &r)
			n += len(r.Segments)
		}
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	slices, flows := checkWaterfall(t, b.Bytes())
	if slices != n || flows == 0 {
		t.Errorf("%d slices for %d segments, %d flows", slices, n, flows)
	}
}

func TestWaterfallEmpty(t *testing.T) {
	var b bytes.Buffer
	if _, err := new(Waterfall).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "{\"traceEvents\":[],\"displayTimeUnit\":\"ns\"}\n" {
		t.Errorf("empty waterfall %q", got)
	}
}

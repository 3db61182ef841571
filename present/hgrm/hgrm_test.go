package hgrm

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/stats"
)

func TestHdrGeometry(t *testing.T) {
	// The .hgrm trailer states the layout; check it is the one hdrhistogram built.
	n := stats.NewHistogram().Layout()
	if want := (hgrmBuckets + 1) * hgrmSubBuckets / 2; n != want {
		t.Errorf("hdrhistogram has %d counters, the hgrm trailer implies %d", n, want)
	}
}

// TestHgrmReadsBack parses the output the way HdrHistogram's plotter does:
// lines that split into four numeric fields are points, '#' lines are the
// trailer, and the 100% line has no 1/(1-Percentile) column.
func TestHgrmReadsBack(t *testing.T) {
	h := synthLatency(7, 10_000, 50_000)
	var b bytes.Buffer
	if err := Write(&b, h); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "       Value     Percentile TotalCount 1/(1-Percentile)" || lines[1] != "" {
		t.Fatalf("header %q, want Java's", lines[:2])
	}
	var lastV, lastP float64
	var points int
	for _, line := range lines[2:] {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[0], 64)
		p, _ := strconv.ParseFloat(f[1], 64)
		n, _ := strconv.ParseInt(f[2], 10, 64)
		if v < lastV || p < lastP {
			t.Fatalf("line %q goes backwards", line)
		}
		lastV, lastP = v, p
		if p == 1 {
			if len(f) != 3 || n != h.Count() || v != stats.Us(h.Max()) {
				t.Errorf("100%% line %q, want 3 fields, count %d, max %.3f", line, h.Count(), stats.Us(h.Max()))
			}
			continue
		}
		if len(f) != 4 {
			t.Fatalf("line %q has %d fields, want 4", line, len(f))
		}
		points++
	}
	if lastP != 1 || points < 50 {
		t.Errorf("%d points ending at percentile %v; want many, ending at 1", points, lastP)
	}
	mean := fmt.Sprintf("#[Mean    = %12.3f, StdDeviation   = %12.3f]", h.Mean()/1e3, h.StdDev()/1e3)
	if !strings.Contains(b.String(), mean) {
		t.Errorf("trailer lacks %q", mean)
	}
}

func TestHgrmEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, stats.NewHistogram()); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), "\n") != 5 || !strings.Contains(b.String(), "Total count    =            0]") {
		t.Errorf("empty histogram:\n%s\nwant the header and the trailer only", b.String())
	}
}

// synthLatency is n round trips of base ns and up to half more, one in a
// hundred ten times longer, from Knuth's MMIX LCG (fixed across Go
// releases, unlike math/rand).
func synthLatency(seed uint64, n int64, base int64) *stats.Histogram {
	h := stats.NewHistogram()
	next := func() uint64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return seed >> 33
	}
	for range n {
		v := base + int64(next()%uint64(base/2))
		if next()%100 == 0 {
			v *= 10
		}
		h.Record(v)
	}
	return h
}

package driver

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/tracer"
	"github.com/hoplat/hoplat/tracer/tracertest"
)

// requireTracer skips (fails under HOPLAT_REQUIRE_INTEGRATION) where the
// tracer cannot run: not root, no BTF.
func requireTracer(t *testing.T) {
	t.Helper()
	peer.Integration(t, "tracer with BPF")
	tr, err := tracer.Open(tracer.Config{})
	if errors.Is(err, errors.ErrUnsupported) {
		peer.Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
}

// A traced run: every path gets one traced round whose requests' segments
// partition their round trips, every relay path is split from its trace
// (method trace) with its p99 request's own split in the text, and --out
// writes the waterfall.
func TestRunTraced(t *testing.T) {
	requireTracer(t)
	cfg := shortConfig(t, hop.Direct, hop.Epoll)
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.Trace = true // unpinned, as shortConfig runs: the trace sees where each component ran
	rep := runClean(t, cfg)
	if rep.Tracer == nil || !rep.Tracer.On || rep.Tracer.PerRecordNs <= 0 {
		t.Fatalf("tracer %+v, want on and calibrated", rep.Tracer)
	}
	for _, p := range rep.Paths {
		tr := p.Trace
		if tr == nil {
			t.Fatalf("%s: not traced (%v)", p.Name, p.Decomposition)
		}
		// A loaded machine (the race detector, a whole suite) runs few
		// requests in a traced round of 100 ms; a dozen still tell.
		// Identity is whether a request's segments tile its round trip
		// (tracer.IdentityPct), a share of the walk, not a speed: it
		// holds within 5% on any machine.
		if tr.Requests < 12 || tr.IdentityPct > 5 || tr.P50Us <= 0 || tr.P99Us < tr.P50Us {
			t.Errorf("%s: trace %+v: want requests whose segments sum to their round trips within 5%%", p.Name, tr)
		}
		if p.Relay == hop.Direct {
			if tr.P50Split.RelayUser != 0 || tr.P50Split.RelayKernel != 0 {
				t.Errorf("%s: a direct path with relay time %+v", p.Name, tr.P50Split)
			}
			continue
		}
		if d := p.Decomposition; d == nil || d.Method != "trace" {
			t.Errorf("%s: decomposition %+v, want method trace", p.Name, d)
		}
		if tr.P50Split.RelayUser+tr.P50Split.RelayKernel <= 0 {
			t.Errorf("%s: the median request spent no time in the relay: %+v", p.Name, tr.P50Split)
		}
	}
	// Every request's round trip holds wake-ups: the check beside the
	// probe has them, with quartiles in order.
	w := rep.Tracer.Wakes
	if w == nil || w.CrossIdle.N+w.SameCPU.N == 0 {
		t.Fatalf("tracer wakes %+v, want the traced requests' wake-ups", w)
	}
	for _, s := range []hop.Spread{w.CrossIdle, w.SameCPU} {
		if s.N > 0 && !(0 < s.P25 && s.P25 <= s.P50 && s.P50 <= s.P75) {
			t.Errorf("wake-ups %+v: quartiles out of order", s)
		}
	}
	var text bytes.Buffer
	present.WriteText(&text, rep)
	for _, want := range []string{"traced requests", "epoll tcp->tcp: the p99 request (", "wake-ups the traced requests waited for"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	dir := t.TempDir()
	if err := present.WriteFiles(dir, rep); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	slices, flows, err := tracertest.CheckWaterfall(b)
	if err != nil || slices == 0 || flows == 0 {
		t.Errorf("trace.json: %d slices, %d flows: %v", slices, flows, err)
	}
}

package compare

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hoplat/hoplat/tracer/attach"
)

// attachReport is an attach report of n windows whose to_upstream on_cpu
// is onCPU µs per chunk plus a wobble a window, everything else fixed.
func attachReport(n int, onCPU float64) *attach.Report {
	r := &attach.Report{Schema: attach.Schema, Target: attach.TargetReport{Comm: "haproxy"}}
	for _, name := range []string{"to_upstream", "to_client"} {
		r.Directions = append(r.Directions, attach.DirectionReport{Name: name, Chunks: int64(100 * n),
			ResidenceUs: attach.ResidenceUs{P50: 20, Mean: 20}})
	}
	r.Directions[0].ResidenceUs.Mean += onCPU
	for i := range n {
		wobble := float64(i%3) * 0.1
		w := attach.WindowReport{Start: time.Unix(int64(i), 0), DurationS: 0.2, Chunks: 200}
		w.Directions = []attach.WindowDirection{
			{Name: "to_upstream", Chunks: 100, ResidenceP50Us: 15 + onCPU + wobble, SplitUs: attach.SplitUs{Runnable: 5 + wobble, OnCPU: onCPU + 10 + wobble, Softirq: 2}},
			{Name: "to_client", Chunks: 100, ResidenceP50Us: 15 + wobble, SplitUs: attach.SplitUs{Runnable: 5 + wobble, OnCPU: 10 + wobble, Softirq: 2}},
		}
		r.Windows = append(r.Windows, w)
	}
	return r
}

func TestCompareAttach(t *testing.T) {
	old := AttachRun{Name: "old", Report: attachReport(12, 0)}
	nw := AttachRun{Name: "new", Report: attachReport(12, 200)}
	c := CompareAttach(old, nw, 0)
	if c.Schema != Schema || len(c.Rows) != 10 {
		t.Fatalf("schema %q, %d rows: want %q, 10 (5 a direction)", c.Schema, len(c.Rows), Schema)
	}
	want := map[string]bool{"to_upstream residence_p50": true, "to_upstream on_cpu": true}
	for _, r := range c.Rows {
		if r.Significant != want[r.Name] {
			t.Errorf("%s: significant %v (delta %+.2f, p %.3f, noise %.2f), want %v", r.Name, r.Significant, r.DeltaUs, r.PValue, r.NoiseUs, want[r.Name])
		}
		if r.NOld != 12 || r.NNew != 12 {
			t.Errorf("%s: n %d+%d, want 12+12 (the windows)", r.Name, r.NOld, r.NNew)
		}
		if r.Name == "to_upstream on_cpu" && r.DeltaUs != 200 {
			t.Errorf("to_upstream on_cpu moved %+.2f µs, want +200", r.DeltaUs)
		}
	}
	same := CompareAttach(old, AttachRun{Name: "again", Report: attachReport(12, 0)}, 0)
	for _, r := range same.Rows {
		if r.Significant {
			t.Errorf("same runs: %s called moved by %+.2f", r.Name, r.DeltaUs)
		}
	}
}

func TestLoadAttach(t *testing.T) {
	dir := t.TempDir()
	b, err := json.Marshal(attachReport(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, AttachFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := SchemaOf(dir); err != nil || s != attach.Schema {
		t.Errorf("SchemaOf(%s) = %q, %v; want %q", dir, s, err, attach.Schema)
	}
	r, err := LoadAttach(dir)
	if err != nil || len(r.Report.Windows) != 3 {
		t.Fatalf("LoadAttach: %v, %+v", err, r)
	}
	empty := attachReport(0, 0)
	b, _ = json.Marshal(empty)
	f := filepath.Join(dir, "old.json")
	os.WriteFile(f, b, 0o644)
	if _, err := LoadAttach(f); err == nil {
		t.Error("a report without windows loaded")
	}
}

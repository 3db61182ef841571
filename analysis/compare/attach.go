package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/perf/benchmath"

	"github.com/hoplat/hoplat/tracer/attach"
)

// AttachRun is one hopbench attach report and the name it is shown under.
type AttachRun struct {
	Name   string
	Report *attach.Report
}

// AttachFile is the report a folder holds: attach.json.
const AttachFile = "attach.json"

// SchemaOf peeks at file's schema (file, or the report.json or attach.json
// inside a folder): which comparison it takes.
func SchemaOf(file string) (string, error) {
	b, err := os.ReadFile(reportIn(file))
	if err != nil {
		return "", fmt.Errorf("compare: %w", err)
	}
	var head struct{ Schema string }
	if err := json.Unmarshal(b, &head); err != nil {
		return "", fmt.Errorf("compare: read %s: %w", file, err)
	}
	return head.Schema, nil
}

// reportIn is file, or the report a folder holds: report.json (hopbench
// --out) or attach.json.
func reportIn(file string) string {
	if fi, err := os.Stat(file); err != nil || !fi.IsDir() {
		return file
	}
	if p := filepath.Join(file, AttachFile); exists(p) {
		return p
	}
	return filepath.Join(file, "report.json")
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// LoadAttach reads a hoplat.attach.v1 report from file, or from the
// attach.json inside file when it is a folder.
func LoadAttach(file string) (AttachRun, error) {
	p := reportIn(file)
	r, err := load(p, func(r *attach.Report) string { return r.Schema }, attach.Schema)
	if err != nil {
		return AttachRun{}, err
	}
	if len(r.Windows) == 0 {
		return AttachRun{}, fmt.Errorf("compare: %s: no windows[] (an attach report from before they were kept)", p)
	}
	return AttachRun{Name: file, Report: r}, nil
}

// AttachComparison is two attach runs side by side: per direction, its
// residence p50 and each part of its split.
type AttachComparison struct {
	Schema string   `json:"schema"`
	Old    string   `json:"old"`
	New    []string `json:"new"` // one run: a list as hopbench's comparison has it

	Alpha float64 `json:"alpha"`
	// Test and Noise name the test behind the p values and the noise a
	// change must exceed, which package present words.
	Test  string      `json:"test"`
	Noise string      `json:"noise"`
	Rows  []AttachRow `json:"rows"`
	// Differences are what differs in the two runs' targets and tracing
	// (the process name, the duty): said, not refused, since an upgrade
	// may rename what it upgrades.
	Differences []Difference `json:"differences"`
}

// AttachRow is one figure of one direction: "to_upstream residence_p50",
// "to_client on_cpu". Its sides are the medians of the windows' values
// (each window's residence p50, or its mean per chunk of the part).
type AttachRow struct {
	Name        string  `json:"name"`
	OldUs       float64 `json:"old_us"`
	NewUs       float64 `json:"new_us"`
	DeltaUs     float64 `json:"delta_us"`
	PValue      float64 `json:"p_value"`
	Significant bool    `json:"significant"`
	NOld        int     `json:"n_old"`
	NNew        int     `json:"n_new"`
	// NoiseUs is the change below which none is called: AttachNoisePct
	// of the old side's hop, its two directions' mean residences summed.
	NoiseUs  float64  `json:"noise_us"`
	Warnings []string `json:"warnings,omitempty"`
}

// AttachNoisePct is the share of the old side's hop (a request's two
// crossings: both directions' mean residences summed) a figure must move
// by before a change is called: a fresh proxy process moves a hop up to
// SingleRunHopFloorPct between runs (noise.go), and what a chunk waits
// for a CPU in one direction moves with what the proxy does in the other
// (a longer stay one way keeps the proxy's CPU busy when the other way's
// bytes arrive). The test alone would call a shift of a fraction of a µs
// over hundreds of windows.
const AttachNoisePct = SingleRunHopFloorPct

// attachParts are the rows of a direction after its residence p50.
var attachParts = []struct {
	name string
	of   func(attach.SplitUs) float64
}{
	{"blocked", func(s attach.SplitUs) float64 { return s.Blocked }},
	{"runnable", func(s attach.SplitUs) float64 { return s.Runnable }},
	{"on_cpu", func(s attach.SplitUs) float64 { return s.OnCPU }},
	{"softirq", func(s attach.SplitUs) float64 { return s.Softirq }},
}

// CompareAttach sets nw against old, a row per direction and figure, the
// U test on the two sides' windows at alpha (0: DefaultAlpha).
func CompareAttach(old, nw AttachRun, alpha float64) *AttachComparison {
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	c := &AttachComparison{Schema: Schema, Old: old.Name, New: []string{nw.Name}, Alpha: alpha,
		Rows: []AttachRow{}, Differences: attachDifferences(old, nw)}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = alpha
	hop := 0.0
	for _, od := range old.Report.Directions {
		hop += od.ResidenceUs.Mean
	}
	noise := float64(AttachNoisePct) / 100 * hop
	for _, od := range old.Report.Directions {
		nd, ok := direction(nw.Report, od.Name)
		if !ok {
			continue
		}
		add := func(name string, of func(attach.WindowDirection) float64) {
			so := benchmath.NewSample(windowValues(old.Report, od.Name, of), &th)
			sn := benchmath.NewSample(windowValues(nw.Report, nd.Name, of), &th)
			cmp := benchmath.AssumeNothing.Compare(so, sn)
			r := AttachRow{Name: od.Name + " " + name, OldUs: round2(median(so)), NewUs: round2(median(sn)),
				PValue: cmp.P, NOld: cmp.N1, NNew: cmp.N2, NoiseUs: round2(noise)}
			r.DeltaUs = round2(r.NewUs - r.OldUs)
			r.Significant = cmp.P <= alpha && math.Abs(r.DeltaUs) > noise
			for _, w := range cmp.Warnings {
				r.Warnings = append(r.Warnings, w.Error())
			}
			c.Rows = append(c.Rows, r)
		}
		add("residence_p50", func(w attach.WindowDirection) float64 { return w.ResidenceP50Us })
		for _, p := range attachParts {
			add(p.name, func(w attach.WindowDirection) float64 { return p.of(w.SplitUs) })
		}
	}
	return c
}

func direction(r *attach.Report, name string) (attach.DirectionReport, bool) {
	for _, d := range r.Directions {
		if d.Name == name {
			return d, true
		}
	}
	return attach.DirectionReport{}, false
}

// windowValues is of for each window with chunks in direction name.
func windowValues(r *attach.Report, name string, of func(attach.WindowDirection) float64) []float64 {
	var v []float64
	for _, w := range r.Windows {
		for _, d := range w.Directions {
			if d.Name == name && d.Chunks > 0 {
				v = append(v, of(d))
			}
		}
	}
	return v
}

func attachDifferences(old, nw AttachRun) []Difference {
	d := []Difference{}
	a, b := old.Report, nw.Report
	if a.Target.Comm != b.Target.Comm {
		d = append(d, Difference{Kind: "workload", Field: "target.comm", Old: a.Target.Comm, New: b.Target.Comm, Run: nw.Name})
	}
	if a.Tracer.DutyPct != b.Tracer.DutyPct {
		d = append(d, Difference{Kind: "workload", Field: "tracer.duty_pct", Old: fmt.Sprint(a.Tracer.DutyPct), New: fmt.Sprint(b.Tracer.DutyPct), Run: nw.Name})
	}
	return d
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

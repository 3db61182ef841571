package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/stats"
)

// Schema names the JSON layout WriteJSON writes.
const Schema = "hoplat.compare.v1"

// DefaultAlpha is the significance level when Options leaves it unset:
// benchstat's.
const DefaultAlpha = 0.05

// ErrDifferent is returned (wrapped) when the runs do not describe the same
// experiment and Options.AllowDifferent is false.
var ErrDifferent = errors.New("runs differ in machine, placement or workload")

// Run is one report and the name it is shown under (its file).
type Run struct {
	Name   string
	Report *hop.Report
}

// Load reads a hoplat.hopbench.v1 report from file, or from the
// report.json inside file when it is a folder (hopbench --out's).
func Load(file string) (Run, error) {
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		file = filepath.Join(file, "report.json")
	}
	r, err := load(file, func(r *hop.Report) string { return r.Schema }, hop.Schema)
	if err != nil {
		return Run{}, err
	}
	return Run{Name: file, Report: r}, nil
}

// load reads a report of type R from file and checks that schema reads
// want from it.
func load[R any](file string, schema func(*R) string, want string) (*R, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	var r R
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("compare: read %s: %w", file, err)
	}
	if got := schema(&r); got != want {
		return nil, fmt.Errorf("compare: %s: schema %q, want %q", file, got, want)
	}
	return &r, nil
}

// Options are the comparison's settings; the zero value tests at
// DefaultAlpha, refuses runs that differ and calls no change on a
// degraded row.
type Options struct {
	Alpha          float64 // significance level of the U test; 0 means DefaultAlpha
	AllowDifferent bool    // compare runs whose machine, placement or workload differ
	// AllowDegraded calls changes on rows where either side had failed
	// rounds, errors, an unstable path or a partial run; they are named
	// either way.
	AllowDegraded bool
}

// Comparison is the result: the rows of every new run against the old, and
// what differs between the runs.
type Comparison struct {
	Schema string   `json:"schema"`
	Old    string   `json:"old"`
	New    []string `json:"new"`
	Alpha  float64  `json:"alpha"`
	// Test names the test behind every p value; package present says
	// it, and a comparison read from JSON keeps its own.
	Test string `json:"test"`
	// Noise says how every row's noise_pct was measured: a change is
	// called only where the test finds it and it exceeds that.
	Noise string `json:"noise"`
	// Method is Noise as what measured it, which package present says
	// in Noise; nil on a comparison refused for its differences and on
	// one read from JSON, which keeps its Noise.
	Method *NoiseMethod `json:"-"`
	// Within is the run both sides come from when two of its paths are
	// compared (Within); empty when the sides are runs.
	Within      string       `json:"within,omitempty"`
	Rows        []Row        `json:"rows"`
	Differences []Difference `json:"differences"`
	// Unmatched are the paths that only one side measured.
	Unmatched []string `json:"unmatched,omitempty"`
	// Alone are the unmatched paths as names, which package present says
	// in Unmatched.
	Alone []Alone `json:"-"`
	// Partial are the runs of either side that were stopped before their
	// end (hop.Report.Partial): every row of theirs is degraded.
	Partial []PartialRun `json:"partial,omitempty"`
}

// PartialRun is a run of one side that was stopped before its end.
type PartialRun struct {
	Side   string `json:"side"` // old or new
	Name   string `json:"name"` // the side's, as Old or one of New
	Run    string `json:"run"`
	Reason string `json:"reason"` // the report's partial_reason
}

// partialOf is s's partial runs, on the side named sideName.
func partialOf(sideName, name string, runs []Run) []PartialRun {
	var out []PartialRun
	for _, r := range runs {
		if why := partialReason(r.Report); why != "" {
			out = append(out, PartialRun{Side: sideName, Name: name, Run: r.Name, Reason: why})
		}
	}
	return out
}

// partialReason is why rep is partial, "" for a complete report.
func partialReason(rep *hop.Report) string {
	switch {
	case !rep.Partial:
		return ""
	case rep.PartialReason == "":
		return "stopped before its end"
	}
	return rep.PartialReason
}

// Row is one path at one regime (and sweep setting), old against one new
// run. The p50s are the medians of the kept rounds' p50s, the sample the
// test is run on; the added p50s are the runs' own (the median of the
// per-round differences from the direct baseline), tested on those
// per-round differences. The added fields are absent on direct paths.
type Row struct {
	Name    string `json:"name"`
	Regime  string `json:"regime"`
	Setting string `json:"setting,omitempty"` // the sweep point (threads, service time, size, rows) when a run sweeps
	NewRun  string `json:"new_run"`

	OldP50Us    float64 `json:"old_p50_us"`
	NewP50Us    float64 `json:"new_p50_us"`
	DeltaPct    float64 `json:"delta_pct"`
	PValue      float64 `json:"p_value"`
	Significant bool    `json:"significant"`

	OldAddedP50Us    *float64 `json:"old_added_p50_us,omitempty"`
	NewAddedP50Us    *float64 `json:"new_added_p50_us,omitempty"`
	AddedDeltaPct    *float64 `json:"added_delta_pct,omitempty"`
	AddedPValue      *float64 `json:"added_p_value,omitempty"`
	AddedSignificant *bool    `json:"added_significant,omitempty"`

	NOld int `json:"n_old"`
	NNew int `json:"n_new"`

	// NoisePct is what separates two runs of one configuration on this
	// machine, in percent of the p50 (noise.go): Significant stays false
	// where |DeltaPct| is not above it. NoiseFrom names the measurement
	// that set it. AddedNoisePct is the same for the added p50.
	NoisePct  float64 `json:"noise_pct"`
	NoiseFrom string  `json:"noise_from"`
	// Noise is NoiseFrom as the measurement's kind and figures, which
	// package present says in it.
	Noise         NoiseSource `json:"-"`
	AddedNoisePct *float64    `json:"added_noise_pct,omitempty"`
	// Degraded names each side's failed rounds, errors and instability
	// on this path; no change is called here unless Options.AllowDegraded.
	Degraded []Degraded `json:"degraded,omitempty"`

	// Warnings are the test's own: too few rounds to ever reach alpha.
	Warnings []string `json:"warnings,omitempty"`
}

// Alone is a path that only one side measured: its row's label, and the
// side (run) that has it, or, comparing two paths of one run (Within), the
// path it has none of beside it (Beside set).
type Alone struct {
	Label  string
	Run    string
	Beside bool
}

// Difference is a field of the machine, the placement or the workload that
// differs between the old run and a new one.
type Difference struct {
	Kind  string `json:"kind"` // machine, placement or workload
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
	Run   string `json:"new_run"`
}

// Compare sets every run after the first against the first, each its
// own table. With runs that differ and opt.AllowDifferent unset, it
// returns the comparison with its Differences and no rows, and an error
// wrapping ErrDifferent.
func Compare(runs []Run, opt Options) (*Comparison, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("compare: need two runs or more, have %d", len(runs))
	}
	var news []side
	for _, r := range runs[1:] {
		news = append(news, side{r.Name, []Run{r}})
	}
	return compareSides(side{runs[0].Name, runs[:1]}, news, opt)
}

// CompareRepeated sets the repeated runs of one configuration (nw)
// against those of another (old), as benchstat pools -count: each
// side's kept rounds are pooled into one sample, and how far the runs of
// a side lie apart is a measure of the noise every row is held to.
func CompareRepeated(old, nw []Run, opt Options) (*Comparison, error) {
	if len(old) == 0 || len(nw) == 0 {
		return nil, fmt.Errorf("compare: need a run or more on each side, have %d and %d", len(old), len(nw))
	}
	return compareSides(sideOf(old), []side{sideOf(nw)}, opt)
}

// side is one column of a comparison: one run, or the repeated runs of
// one configuration, pooled.
type side struct {
	name string
	runs []Run
}

func sideOf(runs []Run) side {
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	return side{strings.Join(names, " + "), runs}
}

// entry is a path as one run of a side measured it, with that run's
// paths by key, where its baseline is looked up.
type entry struct {
	run     string
	nth     int // the run's place in its side: two sides may name one file twice
	p       hop.PathResult
	by      map[key]hop.PathResult
	partial string // why the run is partial; "" when complete
}

// index is the side's paths by key, each with an entry per run that
// measured it, in the order the runs list them.
func (s side) index(v hop.Swept) ([]key, map[key][]entry) {
	var order []key
	out := map[key][]entry{}
	for i, r := range s.runs {
		by := map[key]hop.PathResult{}
		for _, p := range r.Report.Paths {
			by[key{p.Name, p.Regime, settingOf(p, v)}] = p
		}
		for _, p := range r.Report.Paths {
			k := key{p.Name, p.Regime, settingOf(p, v)}
			es := out[k]
			if n := len(es); n > 0 && es[n-1].nth == i {
				es[n-1].p = p // a later result of one key in one run stands
				continue
			}
			if len(es) == 0 {
				order = append(order, k)
			}
			out[k] = append(es, entry{r.Name, i, p, by, partialReason(r.Report)})
		}
	}
	return order, out
}

func compareSides(old side, news []side, opt Options) (*Comparison, error) {
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if alpha <= 0 || alpha >= 1 {
		return nil, fmt.Errorf("compare: alpha %v: want between 0 and 1", alpha)
	}
	c := &Comparison{Schema: Schema, Old: old.name, Alpha: alpha, Rows: []Row{}, Differences: []Difference{}}
	ref := old.runs[0]
	for _, r := range old.runs[1:] {
		c.Differences = append(c.Differences, differences(ref, r)...)
	}
	c.Partial = partialOf("old", old.name, old.runs)
	for _, n := range news {
		c.New = append(c.New, n.name)
		c.Partial = append(c.Partial, partialOf("new", n.name, n.runs)...)
		for _, r := range n.runs {
			c.Differences = append(c.Differences, differences(ref, r)...)
		}
	}
	if len(c.Differences) > 0 && !opt.AllowDifferent {
		return c, fmt.Errorf("compare: %w (%d differences); --allow-different compares them anyway", ErrDifferent, len(c.Differences))
	}
	// Direct paths are controls only between runs of one experiment: a
	// workload or placement that differs moves them as it moves the rest.
	controls := len(c.Differences) == 0
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	repeated := len(old.runs) > 1
	for _, n := range news {
		repeated = repeated || len(n.runs) > 1
		rows, unmatched := compareRuns(old, n, th, controls, opt)
		c.Rows = append(c.Rows, rows...)
		c.Alone = append(c.Alone, unmatched...)
	}
	c.Method = &NoiseMethod{Repeated: repeated, Controls: controls}
	return c, nil
}

// key identifies a path result within a run: its name and regime, and the
// sweep point where the run sweeps.
type key struct {
	name, regime, setting string
}

// settingOf is r's sweep point among all, over what varies in either run.
func settingOf(r hop.PathResult, v hop.Swept) string {
	var parts []string
	if v.Threads {
		parts = append(parts, fmt.Sprintf("%d thr", r.Threads))
	}
	if v.Service {
		parts = append(parts, fmt.Sprintf("svc %s µs", hop.Us(r.ServiceTimeUs)))
	}
	if v.Size {
		parts = append(parts, fmt.Sprintf("%d B", r.Size))
	}
	if v.Rows {
		parts = append(parts, fmt.Sprintf("%d rows", r.Rows))
	}
	return strings.Join(parts, ", ")
}

// varies is what takes more than one value within either run: a setting
// each run holds at one value is the same experiment's knob, and a
// difference of it between the runs is reported as a workload difference.
func varies(runs ...Run) hop.Swept {
	var v hop.Swept
	for _, r := range runs {
		v = v.Or(hop.SweptOf(r.Report.Paths))
	}
	return v
}

func compareRuns(old, nw side, th *benchmath.Thresholds, controls bool, opt Options) ([]Row, []Alone) {
	v := varies(append(slices.Clone(old.runs), nw.runs...)...)
	oldOrder, oldBy := old.index(v)
	newOrder, newBy := nw.index(v)
	var rows []Row
	var unmatched []Alone
	for _, k := range oldOrder {
		ns, ok := newBy[k]
		if !ok {
			unmatched = append(unmatched, Alone{Label: label(k), Run: old.name})
			continue
		}
		olds := oldBy[k]
		r := row(k, olds, ns, v, nw.name, th)
		n := noiseOf(k, sides{old.name, nw.name, oldBy, newBy}, controls)
		r.NoisePct, r.Noise = n.p50.pct, n.p50.from
		if r.OldAddedP50Us != nil {
			a := n.added.pct
			r.AddedNoisePct = &a
		}
		r.Degraded = append(degradedOf("old", olds), degradedOf("new", ns)...)
		hold(&r, opt)
		rows = append(rows, r)
	}
	for _, k := range newOrder {
		if _, ok := oldBy[k]; !ok {
			unmatched = append(unmatched, Alone{Label: label(k), Run: nw.name})
		}
	}
	return rows, unmatched
}

func label(k key) string {
	s := k.name
	if k.regime != "" && !strings.HasSuffix(s, " "+k.regime) {
		s += " " + k.regime
	}
	if k.setting != "" {
		s += " (" + k.setting + ")"
	}
	return s
}

// row is k's test, old entries against new: the U test's verdict
// before hold holds it to the noise and the sides' health.
func row(k key, olds, ns []entry, v hop.Swept, newName string, th *benchmath.Thresholds) Row {
	so, sn := benchmath.NewSample(pooled(olds, keptOf), th), benchmath.NewSample(pooled(ns, keptOf), th)
	cmp := benchmath.AssumeNothing.Compare(so, sn)
	r := Row{Name: k.name, Regime: k.regime, Setting: k.setting, NewRun: newName,
		OldP50Us: median(so), NewP50Us: median(sn), PValue: cmp.P, Significant: cmp.P <= cmp.Alpha,
		NOld: cmp.N1, NNew: cmp.N2}
	r.DeltaPct = pct(r.OldP50Us, r.NewP50Us)
	for _, w := range cmp.Warnings {
		r.Warnings = append(r.Warnings, w.Error())
	}
	if olds[0].p.Relay == hop.Direct || !allAdded(olds) || !allAdded(ns) {
		return r
	}
	oa, na := addedOf(olds), addedOf(ns)
	r.OldAddedP50Us, r.NewAddedP50Us = &oa, &na
	d := pct(oa, na)
	r.AddedDeltaPct = &d
	po, okO := pairedAll(olds, v)
	pn, okN := pairedAll(ns, v)
	if !okO || !okN {
		return r
	}
	ac := benchmath.AssumeNothing.Compare(benchmath.NewSample(po, th), benchmath.NewSample(pn, th))
	sig := ac.P <= ac.Alpha
	r.AddedPValue, r.AddedSignificant = &ac.P, &sig
	return r
}

// hold calls a change only where the test found one, it exceeds the
// noise, and neither side was degraded there (unless allowed).
func hold(r *Row, opt Options) {
	ok := len(r.Degraded) == 0 || opt.AllowDegraded
	r.Significant = r.Significant && ok && math.Abs(r.DeltaPct) > r.NoisePct
	if r.AddedSignificant != nil {
		s := *r.AddedSignificant && ok && math.Abs(*r.AddedDeltaPct) > *r.AddedNoisePct
		r.AddedSignificant = &s
	}
}

func keptOf(e entry) []float64 { return Kept(e.p) }

// pooled is every entry's sample, one after another.
func pooled(es []entry, f func(entry) []float64) []float64 {
	var out []float64
	for _, e := range es {
		out = append(out, f(e)...)
	}
	return out
}

func allAdded(es []entry) bool {
	for _, e := range es {
		if e.p.AddedUs == nil {
			return false
		}
	}
	return true
}

// addedOf is a side's added p50: the run's own, or the median of its
// runs' added p50s.
func addedOf(es []entry) float64 {
	if len(es) == 1 {
		return es[0].p.AddedUs.P50
	}
	var v []float64
	for _, e := range es {
		v = append(v, e.p.AddedUs.P50)
	}
	return stats.Median(v)
}

// pairedAll is every entry's per-round differences from its baseline in
// its own run; false where a run lacks the baseline.
func pairedAll(es []entry, v hop.Swept) ([]float64, bool) {
	var out []float64
	for _, e := range es {
		b, ok := baseline(e.p, e.by, v)
		if !ok {
			return nil, false
		}
		out = append(out, paired(e.p, b)...)
	}
	return out, true
}

// Kept is the sample a path's p50 is tested on: the p50 of every kept
// round that measured one, in round order.
func Kept(p hop.PathResult) []float64 {
	if len(p.Rounds) == 0 {
		return p.RoundsP50Us
	}
	var out []float64
	for _, r := range p.Rounds {
		if r.Kept && r.Failed == "" && r.P50 > 0 {
			out = append(out, r.P50)
		}
	}
	return out
}

// paired is p's kept round p50s less its baseline's of the same round:
// the per-round differences its added p50 is the median of.
func paired(p, base hop.PathResult) []float64 {
	by := map[int]float64{}
	for _, r := range base.Rounds {
		if r.Kept && r.Failed == "" && r.P50 > 0 {
			by[r.Index] = r.P50
		}
	}
	var out []float64
	for _, r := range p.Rounds {
		if b, ok := by[r.Index]; ok && r.Kept && r.Failed == "" && r.P50 > 0 {
			out = append(out, r.P50-b)
		}
	}
	return out
}

// baseline is the direct path p's added latency was measured against, in
// the same run, regime and setting.
func baseline(p hop.PathResult, by map[key]hop.PathResult, v hop.Swept) (hop.PathResult, bool) {
	for k, q := range by {
		if q.Name == p.AddedUs.Baseline && k.regime == p.Regime && k.setting == settingOf(p, v) {
			return q, true
		}
	}
	// A run with several regimes names its paths with the regime.
	for k, q := range by {
		if q.Relay == hop.Direct && q.ClientTransport == p.ClientTransport && k.regime == p.Regime && k.setting == settingOf(p, v) {
			return q, true
		}
	}
	return hop.PathResult{}, false
}

// median is benchmath's centre of s, the sample its U test ranks; it
// interpolates the two middle values as stats.Median does not quite
// (a+(b-a)/2, not (a+b)/2), and compare's JSON has printed its digits
// since the first schema.
func median(s *benchmath.Sample) float64 {
	if len(s.Values) == 0 {
		return 0
	}
	return benchmath.AssumeNothing.Summary(s, 0.95).Center
}

func pct(old, nw float64) float64 {
	if old == 0 {
		return 0
	}
	return 100 * (nw/old - 1)
}

// differences lists what of the machine, the placement and the workload
// differs between a and b.
func differences(a, b Run) []Difference {
	var out []Difference
	add := func(kind, field string, x, y any) {
		xs, ys := show(x), show(y)
		if xs != ys {
			out = append(out, Difference{Kind: kind, Field: field, Old: xs, New: ys, Run: b.Name})
		}
	}
	// Machine facts stand only where both runs described the machine.
	fb := map[string]any{}
	for _, f := range facts(b.Report) {
		fb[f.field] = f.v
	}
	for _, f := range facts(a.Report) {
		if y, ok := fb[f.field]; ok {
			add(f.kind, f.field, f.v, y)
		}
	}
	// What each component obtained, path by path: a CPU list that moved
	// is a different experiment even under the same spec.
	pb := map[string]hop.PathResult{}
	for _, p := range b.Report.Paths {
		pb[p.Name+"\x00"+p.Regime] = p
	}
	for _, p := range a.Report.Paths {
		if q, ok := pb[p.Name+"\x00"+p.Regime]; ok {
			add("placement", "placement of "+label(key{p.Name, p.Regime, ""}), placement(p.Placement), placement(q.Placement))
		}
	}
	return out
}

// fact is one setting of a run that two runs must share to be the same
// experiment: kind says whether it is the machine's, the workload's or the
// placement's.
type fact struct {
	kind, field string
	v           any
}

// facts are r's settings in the order differences lists them.
func facts(r *hop.Report) []fact {
	e, c := r.Env, r.Config
	fs := []fact{
		{"machine", "env.hostname", e.Hostname},
		{"machine", "env.arch", e.Arch},
		{"machine", "env.kernel", e.Kernel},
		{"machine", "env.cpu_model", e.CPUModel},
		{"machine", "env.cores", e.Cores},
		{"machine", "env.gomaxprocs", e.GOMAXPROCS},
		{"machine", "env.clock_source", e.ClockSource},
		{"workload", "config.backend", c.Backend},
		{"workload", "config.proto", c.Proto},
		{"workload", "config.command", c.Command},
		{"workload", "config.threads", c.Threads},
		{"workload", "config.service_times_us", c.ServiceTimesUs},
		{"workload", "config.sizes", c.Sizes},
		{"workload", "config.rows", c.Rows},
		{"workload", "config.hops", c.Hops},
		{"workload", "config.relay_lock", c.RelayLock},
		{"workload", "config.nice", c.Nice},
		{"placement", "config.placement", c.Placement},
		{"placement", "regimes", regimes(r)},
	}
	if m := r.Machine; m != nil {
		// After the environment, before the workload, as they were listed.
		fs = slices.Insert(fs, 7,
			fact{"machine", "machine.virtualization", m.Virtualization},
			fact{"machine", "machine.cpuidle.governor", m.CPUIdle.Governor},
			fact{"machine", "machine.smt", m.SMT},
			fact{"machine", "machine.isolated_cpus", m.IsolatedCPUs})
	}
	return fs
}

func regimes(r *hop.Report) string {
	var parts []string
	for _, g := range r.Regimes {
		parts = append(parts, g.Name+"="+g.Placement)
	}
	return strings.Join(parts, "; ")
}

func placement(m map[string]string) string {
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, c+"="+m[c])
	}
	return strings.Join(parts, " ")
}

func show(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if s == "null" || s == "[]" {
		return ""
	}
	return s
}

package present

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/hgrm"
	"github.com/hoplat/hoplat/present/plot"
)

// WriteFiles fills dir with the report in every format, one .hgrm per path
// result, and the plots.
func WriteFiles(dir string, rep *hop.Report) error {
	Words(rep)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("hop: out dir %s: %w", dir, err)
	}
	files := []struct {
		name  string
		write func(io.Writer, *hop.Report) error
	}{
		{"report.json", WriteJSON},
		{"report.csv", WriteCSV},
		{"report.txt", WriteText},
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, rep) }); err != nil {
			return err
		}
	}
	if len(rep.TraceEvents) > 0 {
		// Chrome's trace-event format: ui.perfetto.dev and
		// chrome://tracing open it as it is.
		if err := writeFile(filepath.Join(dir, "trace.json"), func(w io.Writer) error {
			_, err := w.Write(rep.TraceEvents)
			return err
		}); err != nil {
			return err
		}
	}
	for _, p := range rep.Paths {
		if p.Hist == nil {
			continue
		}
		name := filepath.Join(dir, hop.FileName(p, rep.Paths)+".hgrm")
		if err := writeFile(name, func(w io.Writer) error { return hgrm.Write(w, p.Hist) }); err != nil {
			return err
		}
	}
	return writePlots(dir, rep)
}

func writeFile(name string, fill func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}

// writePlots draws every figure the report has data for, each as PNG and
// SVG: the latency spectrum and added latency of the first group of
// results, throughput against threads, overhead against service time, and
// the chain fits.
func writePlots(dir string, rep *hop.Report) error {
	type figure struct {
		name string
		draw func(w io.Writer, format string) error
	}
	var figs []figure
	first := firstResults(rep.Paths)
	var spec []plot.Line
	var bars []plot.Bar
	for _, p := range first {
		if p.Hist != nil {
			x, y := p.Hist.Spectrum()
			spec = append(spec, plot.Line{Name: p.Name, X: x, Y: y})
		}
		if a := p.AddedUs; a != nil && p.Relay != hop.Direct {
			bars = append(bars, plot.Bar{Name: p.Name, Value: a.P50, Lo: a.CI95P50[0], Hi: a.CI95P50[1]})
		}
	}
	if len(spec) > 0 {
		figs = append(figs, figure{"spectrum", func(w io.Writer, f string) error {
			return plot.Spectrum(w, f, "Latency by percentile", spec)
		}})
	}
	if len(bars) > 0 {
		figs = append(figs, figure{"added", func(w io.Writer, f string) error {
			return plot.Added(w, f, "Added p50 round trip vs direct (95% CI)", "added p50 round trip (µs)", bars)
		}})
	}
	var stacks []plot.Stack
	for _, p := range rep.Paths {
		if d := p.Decomposition; d != nil {
			var ends float64 // not measured: in the residual, as the table's "-"
			if d.Endpoints != nil {
				ends = *d.Endpoints
			}
			var excess float64 // comes off the CPU figures: a negative part
			if d.MeanExcess != nil {
				excess = -*d.MeanExcess
			}
			stacks = append(stacks, plot.Stack{Name: p.Name, Parts: []float64{d.RelayCode, d.Wakeups, d.Kernel, ends, excess, d.Residual}})
		}
	}
	if len(stacks) > 0 {
		figs = append(figs, figure{"decomposition", func(w io.Writer, f string) error {
			return plot.Stacked(w, f, "Where each hop's added p50 goes", "added p50 (µs per request)",
				[]string{"relay code", "wake-ups", "kernel legs", "endpoints", "mean excess (off)", "residual"}, stacks)
		}})
	}
	if tps, lat := sweepLines(rep.Paths, func(p hop.PathResult) float64 { return float64(p.Threads) }); len(tps) > 0 {
		figs = append(figs,
			figure{"threads-tps", func(w io.Writer, f string) error {
				return plot.Lines(w, f, "Throughput by client threads", "client threads (log)", "throughput (requests/s)", true, tps)
			}},
			figure{"threads-latency", func(w io.Writer, f string) error {
				return plot.Lines(w, f, "p50 round trip by client threads", "client threads (log)", "p50 round trip (µs)", true, lat)
			}})
	}
	if over := overheadLines(rep.Paths); len(over) > 0 {
		figs = append(figs, figure{"service-time", func(w io.Writer, f string) error {
			return plot.Lines(w, f, "Overhead against the backend's service time", "service time (µs)", "added p50, % of round trip", false, over)
		}})
	}
	if fits := chainFits(rep); len(fits) > 0 {
		figs = append(figs, figure{"chains", func(w io.Writer, f string) error {
			return plot.Fits(w, f, "p50 round trip by relay hops (per-hop slope in the legend)", "relay hops", "p50 round trip (µs)", fits)
		}})
	}
	for _, fig := range figs {
		for _, f := range plot.Formats {
			name := filepath.Join(dir, fig.name+"."+f)
			if err := writeFile(name, func(w io.Writer) error { return fig.draw(w, f) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstResults is the first backend setting at the smallest thread count.
func firstResults(paths []hop.PathResult) []hop.PathResult {
	if len(paths) == 0 {
		return nil
	}
	least := paths[0].Threads
	for _, p := range paths {
		least = min(least, p.Threads)
	}
	q := paths[0]
	var out []hop.PathResult
	for _, p := range paths {
		if p.Threads == least && p.ServiceTimeUs == q.ServiceTimeUs && p.Size == q.Size && p.Rows == q.Rows {
			out = append(out, p)
		}
	}
	return out
}

// sweepLines gives, per path and backend setting, throughput and p50
// against x, when x takes two or more values.
func sweepLines(paths []hop.PathResult, x func(hop.PathResult) float64) (tps, lat []plot.Line) {
	type key struct {
		name       string
		svc        float64
		size, rows int
	}
	var order []key
	byKey := map[key][]hop.PathResult{}
	for _, p := range paths {
		k := key{p.Name, p.ServiceTimeUs, p.Size, p.Rows}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], p)
	}
	for _, k := range order {
		ps := byKey[k]
		if len(ps) < 2 {
			continue
		}
		slices.SortFunc(ps, func(a, b hop.PathResult) int { return int(x(a) - x(b)) })
		name := k.name
		if len(order) > 1 && (k.svc != 0 || k.size != ps[0].Size) {
			name = fmt.Sprintf("%s (%g µs)", k.name, k.svc)
		}
		t := plot.Line{Name: name}
		l := plot.Line{Name: name}
		for _, p := range ps {
			t.X, t.Y = append(t.X, x(p)), append(t.Y, p.TPS)
			l.X, l.Y = append(l.X, x(p)), append(l.Y, p.LatencyUs.P50)
		}
		tps, lat = append(tps, t), append(lat, l)
	}
	return tps, lat
}

// overheadLines is, per relay path and thread count, the added p50 as a
// share of the round trip against the backend's service time.
func overheadLines(paths []hop.PathResult) []plot.Line {
	type key struct {
		name    string
		threads int
	}
	var order []key
	by := map[key]*plot.Line{}
	for _, p := range paths {
		if p.Relay == hop.Direct || p.AddedUs == nil || p.LatencyUs.P50 == 0 {
			continue
		}
		k := key{p.Name, p.Threads}
		s, ok := by[k]
		if !ok {
			order = append(order, k)
			s = &plot.Line{Name: p.Name}
			by[k] = s
		}
		s.X = append(s.X, p.ServiceTimeUs)
		s.Y = append(s.Y, 100*p.AddedUs.P50/p.LatencyUs.P50)
	}
	var out []plot.Line
	for _, k := range order {
		if s := by[k]; len(s.X) >= 2 {
			out = append(out, *s)
		}
	}
	return out
}

// chainFits gives each chain's per-round p50 points and its fitted line.
func chainFits(rep *hop.Report) []plot.Fit {
	var fits []plot.Fit
	several := false
	for _, c := range rep.Chains {
		several = several || c.Threads != rep.Chains[0].Threads || c.ServiceTimeUs != rep.Chains[0].ServiceTimeUs
	}
	for _, c := range rep.Chains {
		name := fmt.Sprintf("%s %s", c.Relay, c.Transport)
		if several {
			name += fmt.Sprintf(" (%d thr, %g µs)", c.Threads, c.ServiceTimeUs)
		}
		f := plot.Fit{Name: name, Slope: c.PerHopUs, Intercept: c.InterceptUs}
		for _, p := range rep.Paths {
			if p.Threads != c.Threads || p.ServiceTimeUs != c.ServiceTimeUs || !slices.Contains(c.Hops, p.Hops) {
				continue
			}
			if !(p.Relay == c.Relay || p.Relay == hop.Direct) || p.ClientTransport != c.Transport || p.UpstreamTransport != c.Transport {
				continue
			}
			for _, r := range p.Rounds {
				if r.Kept {
					f.X = append(f.X, float64(p.Hops))
					f.Y = append(f.Y, r.P50)
				}
			}
		}
		fits = append(fits, f)
	}
	return fits
}

package load

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/present/internal/sticky"
	"github.com/hoplat/hoplat/series"
	"github.com/hoplat/hoplat/stats"
)

// WriteText prints r in the layout of sysbench 1.0's final report, so that its
// users find transactions, "Latency" and "Threads fairness" where they expect
// them; latencies are in microseconds, not sysbench's milliseconds. Each
// thread count gets one block over its kept runs, followed by the run series
// (mean, median, stddev, 95% CI, discarded and outlier runs named).
func WriteText(w io.Writer, r report.Report) error {
	p := printer{sticky.New(w)}
	if line := partialLine(r); line != "" {
		for _, l := range wrapIndent("", "    ", line) {
			p.Printf("%s\n", l)
		}
	}
	if r.Config != nil {
		lines, err := configLines(config(r))
		if err != nil {
			return fmt.Errorf("results: text report: config: %w", err)
		}
		for _, l := range lines {
			p.Printf("%s\n", l)
		}
	}
	for _, l := range packIndent("Env: ", "     ", envItems(r.Env)) {
		p.Printf("%s\n", l)
	}
	results := r.Results()
	for _, s := range results {
		p.Printf("\n")
		textStep(p, s)
	}
	if len(results) > 1 {
		// One line per thread count, in the form of RonDB's result files
		// ("Threads: 16 Mean: 1684") so existing scripts can read it.
		p.Printf("\nSummary (tps over kept runs):\n")
		for _, s := range results {
			p.Printf("Threads: %d Mean: %.2f Median: %.2f CI95: [%.2f, %.2f] p95_us: %.2f\n",
				s.Threads, s.TPS.Mean, s.TPS.Median, s.TPS.CI95[0], s.TPS.CI95[1], s.Latency.P95)
		}
	}
	return p.Err()
}

// envItems are the environment's facts in the order the Env line gives
// them.
func envItems(e affinity.Env) []string {
	items := []string{
		"host " + e.Hostname, e.OS + "/" + e.Arch, "kernel " + e.Kernel, fmt.Sprintf("cpu %q", e.CPUModel),
		fmt.Sprintf("cores %d", e.Cores), fmt.Sprintf("GOMAXPROCS %d", e.GOMAXPROCS), e.GoVersion, "clock " + e.ClockSource,
	}
	if len(e.Pinning) > 0 {
		pin, _ := json.Marshal(e.Pinning) // sorted keys: stable output
		items = append(items, "pinning "+string(pin))
	}
	return items
}

func textStep(p printer, s report.StepResult) {
	cut := ""
	for _, run := range s.Runs {
		if run.Partial {
			cut = fmt.Sprintf("; run %d cut short after %.2fs", run.Index, run.ElapsedS)
		}
	}
	p.Printf("Threads: %d (%d runs, first %d discarded, figures over the %d kept%s)\n\n",
		s.Threads, len(s.Runs), s.TPS.Discard, s.TPS.N, cut)
	secs := s.ElapsedS

	// sysbench heads this block "SQL statistics"; echo has no SQL.
	if s.SQL {
		p.Printf("SQL statistics:\n")
	} else {
		p.Printf("Round-trip statistics:\n")
	}
	p.count("transactions:", s.Transactions, secs)
	p.count("queries:", s.Queries, secs)
	p.count("ignored errors:", s.Errors, secs)
	p.count("reconnects:", s.Reconnects, secs)
	p.Printf("\nGeneral statistics:\n")
	p.Printf("    %-37s%.4fs\n", "total time:", secs)
	p.Printf("    %-37s%d\n", "total number of events:", s.Transactions)

	p.Printf("\nLatency (us):\n")
	p.latency(s.Latency, true)
	if s.Corrected != nil {
		p.Printf("\nLatency corrected for coordinated omission, from intended send (us):\n")
		p.latency(*s.Corrected, false)
	}
	if s.Connect != nil {
		p.Printf("\nConnect latency (us):\n")
		p.row("connections:", "%d", s.Connect.Count)
		p.latency(*s.Connect, false)
	}
	if s.RXWake != nil {
		p.Printf("\nClient wake-up per response, kernel receive stamp to read (us):\n")
		p.row("stamped responses:", "%d", s.RXWake.Count)
		p.row("unstamped responses:", "%d", s.RXWake.Unstamped)
		p.latency(s.RXWake.Latency, false)
	}

	p.Printf("\nThreads fairness:\n")
	p.Printf("    %-31s%.4f/%.2f\n", "events (avg/stddev):", s.Fairness.EventsAvg, s.Fairness.EventsStdDev)

	if len(s.ErrorSamples) > 0 {
		p.Printf("\nErrors (first distinct):\n")
		for _, e := range s.ErrorSamples {
			p.Printf("    %s\n", e)
		}
	}

	p.Printf("\nRun series:\n")
	p.series("tps", s.TPS)
	if s.QPS != nil {
		p.series("qps", *s.QPS)
	}
	var discarded, outliers []string
	for i, run := range s.Runs {
		desc := fmt.Sprintf("%d (%.2f tps", run.Index, run.TPS)
		if run.Errors > 0 {
			desc += fmt.Sprintf(", %d errors", run.Errors)
		}
		desc += ")"
		if s.TPS.IsDiscarded(i) {
			discarded = append(discarded, desc)
		}
		if run.Outlier {
			outliers = append(outliers, desc)
		}
	}
	p.Printf("    %-31s%s\n", "discarded runs:", listOrNone(discarded))
	p.Printf("    %-31s%s\n", "outlier runs:", listOrNone(outliers))
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// printer keeps the first write error so the layout code reads straight.
type printer struct{ *sticky.Writer }

// count prints a sysbench counter line: "transactions:  N  (X per sec.)".
func (p printer) count(label string, n int64, secs float64) {
	rate := 0.0
	if secs > 0 {
		rate = float64(n) / secs
	}
	p.Printf("    %-37s%-6d (%.2f per sec.)\n", label, n, rate)
}

// row prints a latency line; values end in column 53 as sysbench's do.
func (p printer) row(label, format string, v any) {
	p.Printf("         %-20s%24s\n", label, fmt.Sprintf(format, v))
}

func (p printer) latency(l stats.Latency, sum bool) {
	p.row("min:", "%.2f", l.Min)
	p.row("avg:", "%.2f", l.Avg)
	p.row("stddev:", "%.2f", l.StdDev)
	p.row("max:", "%.2f", l.Max)
	p.row("50th percentile:", "%.2f", l.P50)
	p.row("90th percentile:", "%.2f", l.P90)
	p.row("95th percentile:", "%.2f", l.P95)
	p.row("99th percentile:", "%.2f", l.P99)
	p.row("99.9th percentile:", "%.2f", l.P999)
	if sum {
		p.row("sum:", "%.2f", l.Avg*float64(l.Count))
	}
	if l.Clamped > 0 {
		p.row("above 60 s:", "%d", l.Clamped)
	}
}

func (p printer) series(name string, s series.Summary) {
	p.Printf("    %-31s%.2f/%.2f/%.2f\n", name+" mean/median/stddev:", s.Mean, s.Median, s.StdDev)
	label := name + " 95% CI of mean:"
	switch s.N {
	case 0:
		p.Printf("    %-31sn/a (no run kept)\n", label)
	case 1:
		// One run has no spread to bound: an interval [x, x] would read
		// as a certainty it is not.
		p.Printf("    %-31sn/a (one run)\n", label)
	default:
		p.Printf("    %-31s[%.2f, %.2f] (%d kept runs)\n", label, s.CI95[0], s.CI95[1], s.N)
	}
}

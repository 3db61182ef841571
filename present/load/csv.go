package load

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/hoplat/hoplat/pingpong/report"
)

var csvHeader = []string{
	"threads", "run", "discarded", "outlier", "elapsed_s", "events", "tps",
	"queries", "errors", "reconnects", "min_us", "avg_us", "p50_us", "p90_us",
	"p95_us", "p99_us", "p999_us", "max_us",
}

// WriteCSV writes one row per run of every thread count, discarded runs
// included and flagged, so a spreadsheet can redo the series statistics.
func WriteCSV(w io.Writer, r report.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return fmt.Errorf("results: csv report: %w", err)
	}
	for _, s := range r.Results() {
		for _, run := range s.Runs {
			l := run.Latency
			row := []string{
				strconv.Itoa(s.Threads),
				strconv.Itoa(run.Index),
				strconv.FormatBool(run.Discarded),
				strconv.FormatBool(run.Outlier),
				strconv.FormatFloat(run.ElapsedS, 'f', -1, 64),
				strconv.FormatInt(run.Events, 10),
				fixed(run.TPS),
				strconv.FormatInt(run.Queries, 10),
				strconv.FormatInt(run.Errors, 10),
				strconv.FormatInt(run.Reconnects, 10),
				fixed(l.Min), fixed(l.Avg), fixed(l.P50), fixed(l.P90),
				fixed(l.P95), fixed(l.P99), fixed(l.P999), fixed(l.Max),
			}
			if err := cw.Write(row); err != nil {
				return fmt.Errorf("results: csv report: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("results: csv report: %w", err)
	}
	return nil
}

// fixed keeps three decimals: a nanosecond for a latency in microseconds.
func fixed(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

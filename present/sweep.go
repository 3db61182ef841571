package present

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hoplat/hoplat/analysis/hop"
)

// WriteSweep prints a sweep: which instance ran against which server, a
// table of each instance's tps and p95 and their sum per thread count, and
// autobench's final table, one line per thread count.
func WriteSweep(w io.Writer, s *hop.Sweep) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Sweep: %d client instances in lock-step, against %d servers round-robin\n", s.Instances, len(s.Servers))
	for i := range s.Instances {
		srv := i % max(1, len(s.Servers))
		if srv < len(s.Servers) {
			fmt.Fprintf(&b, "  instance %d -> server %d: %s at %s\n", i+1, srv+1, s.Servers[srv].Name, s.Servers[srv].Address)
		}
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "threads\t")
	for i := range s.Instances {
		fmt.Fprintf(tw, "inst %d tps\tp95 us\t", i+1)
	}
	fmt.Fprint(tw, "sum tps\terrors\t\n")
	for _, r := range s.Rows {
		fmt.Fprintf(tw, "%d\t", r.Threads)
		for _, in := range r.Instances {
			if in.Failed != "" && in.TPS == 0 {
				fmt.Fprint(tw, "failed\t-\t")
				continue
			}
			fmt.Fprintf(tw, "%.1f\t%.0f\t", in.TPS, in.P95Us)
		}
		errs := fmt.Sprint(r.Errors)
		if r.Ignored > 0 {
			errs += fmt.Sprintf(" (+%d ignored)", r.Ignored)
		}
		fmt.Fprintf(tw, "%.1f\t%s\t\n", r.MeanTPS, errs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range s.Rows {
		for _, in := range r.Instances {
			if in.Failed != "" {
				fmt.Fprintf(&b, "threads %d, instance %d: %s\n", r.Threads, in.Instance, in.Failed)
			}
		}
	}
	// autobench's result file: the summed mean, a whole number of
	// transactions per second, per thread count.
	b.WriteString("\nFinal results (sum of the instances, tps):\n")
	for _, r := range s.Rows {
		fmt.Fprintf(&b, "Threads: %d Mean: %.0f\n", r.Threads, r.MeanTPS)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

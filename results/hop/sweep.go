package hop

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Sweep is a run of several client instances at once, in lock-step through
// the thread sweep, each against one of several servers in turn: RonDB's
// autobench with SYSBENCH_INSTANCES and SERVER_HOST="a;b". Its figures
// are each instance's and their sum per thread count.
type Sweep struct {
	Instances int           `json:"instances"`
	Servers   []SweepServer `json:"servers"`
	// Rows holds one entry per thread count, in the order run; Threads is
	// each instance's own thread count, as autobench's.
	Rows []SweepRow `json:"rows"`
}

// SweepServer is one server of a sweep and where it answers.
type SweepServer struct {
	Name    string `json:"name"`    // the backend (password masked), or "embedded on HOST"
	Address string `json:"address"` // what the instances dial
	Host    string `json:"host,omitempty"`
}

// SweepRow is one thread count of a sweep.
type SweepRow struct {
	Threads int `json:"threads"`
	// MeanTPS is the instances' tps summed, the mean over the kept runs:
	// the figure of autobench's final table ("Threads: 16 Mean: 1684").
	MeanTPS float64 `json:"mean_tps"`
	// RunsTPS is that sum in every run, discarded ones included.
	RunsTPS   []float64       `json:"runs_tps"`
	Instances []SweepInstance `json:"instances"`
	Errors    int64           `json:"errors"`
	Ignored   int64           `json:"ignored_errors,omitempty"`
}

// SweepInstance is one client instance's figures at one thread count,
// means over the kept runs.
type SweepInstance struct {
	Instance int     `json:"instance"` // from 1
	Server   int     `json:"server"`   // index into Sweep.Servers, from 0
	TPS      float64 `json:"tps"`
	P95Us    float64 `json:"p95_us"`
	Errors   int64   `json:"errors"`
	Ignored  int64   `json:"ignored_errors,omitempty"`
	Failed   string  `json:"failed,omitempty"` // the first run that produced no figures, and why
}

// WriteSweep prints a sweep: which instance ran against which server, a
// table of each instance's tps and p95 and their sum per thread count, and
// autobench's final table, one line per thread count.
func WriteSweep(w io.Writer, s *Sweep) error {
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

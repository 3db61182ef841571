package driver

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/hoplat/hoplat/results/hop"
)

// progress writes one line per pingpong run: where the run is and about how
// long is left, from the mean duration of the steps so far.
type progress struct {
	w       io.Writer
	total   int
	done    int
	nominal time.Duration
	spent   time.Duration
	began   time.Time
	skipped []hop.Skip // said already: each stage builds its topology afresh and finds the same
}

func newProgress(w io.Writer, total int, nominal time.Duration) *progress {
	return &progress{w: w, total: total, nominal: nominal}
}

// drop takes steps that will not run (skipped paths) out of the estimate.
func (p *progress) drop(steps int) { p.total -= steps }

func (p *progress) begin(st Stage, stage, stages int, s Step, rounds, discard, cells int, c Cell) {
	p.began = time.Now()
	per := p.nominal
	if p.done > 0 {
		per = p.spent / time.Duration(p.done)
	}
	left := time.Duration(p.total-p.done) * per
	var where strings.Builder
	if stages > 1 {
		fmt.Fprintf(&where, "stage %d/%d ", stage+1, stages)
	}
	if st.Regime != "" {
		where.WriteString(st.Regime + " ")
	}
	fmt.Fprintf(&where, "round %d/%d", s.Round+1, rounds)
	if s.Round < discard {
		where.WriteString(" (warm-up)")
	}
	// The line is finished by end with the step's figures, so that a
	// long --time shows what runs now and a short one reads as a log.
	fmt.Fprintf(p.w, "hopbench: %s  path %2d/%d %-22s threads %-3d  ~%s left ",
		where.String(), s.Cell+1, cells, c.Path.Name(), c.Threads, left.Round(time.Second))
}

func (p *progress) end(s hop.Sample) {
	p.done++
	p.spent += time.Since(p.began)
	if s.Failed != "" {
		fmt.Fprintf(p.w, "-> failed: %s\n", s.Failed)
		return
	}
	fmt.Fprintf(p.w, "-> %.0f tps, p50 %s µs, p95 %s µs, %d errors\n", s.TPS, hop.Us(s.Latency.P50), hop.Us(s.Latency.P95), s.Errors)
}

// skip says why a path does not run, once per run however many stages find
// it.
func (p *progress) skip(s hop.Skip) {
	if slices.Contains(p.skipped, s) {
		return
	}
	p.skipped = append(p.skipped, s)
	fmt.Fprintf(p.w, "hopbench: skip %s: %s\n", s.Path, s.Reason)
}

// sized says how long the stage's rounds will run; the estimate of what is
// left then starts from that length.
func (p *progress) sized(rs hop.RoundSizing) {
	fmt.Fprintf(p.w, "hopbench: %s\n", rs)
	if p.done == 0 {
		p.nominal = time.Duration(rs.TimeS * float64(time.Second))
	}
}

// trace and traced frame a cell's traced round.
func (p *progress) trace(st Stage, c Cell) {
	fmt.Fprintf(p.w, "hopbench: %s traced round  %-22s threads %-3d ", st.Regime, c.Path.Name(), c.Threads)
}

func (p *progress) traced(t *hop.Trace, note string) {
	if t == nil {
		fmt.Fprintf(p.w, "-> not traced: %s\n", note)
		return
	}
	fmt.Fprintf(p.w, "-> %d requests, p50 %s µs, identity %.1f%%, covered %.0f%%\n", t.Requests, hop.Us(t.TracedP50Us), t.IdentityPct, t.CoveragePct)
}

func (p *progress) warn(err error) { fmt.Fprintf(p.w, "hopbench: warning: %v\n", err) }

// connect and connected frame a connect-only series.
func (p *progress) connect(st Stage, path hop.Path) {
	fmt.Fprintf(p.w, "hopbench: %s connect-only series  %-22s ", st.Regime, path.Name())
}

func (p *progress) connected(c *hop.Connect, err error) {
	switch {
	case err != nil:
		fmt.Fprintf(p.w, "-> failed: %v\n", err)
	case c == nil:
		fmt.Fprintln(p.w, "-> no connection completed")
	default:
		fmt.Fprintf(p.w, "-> %d connects, p50 %s µs, p99 %s µs\n", c.N, hop.Us(c.P50Us), hop.Us(c.P99Us))
	}
}

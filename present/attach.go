package present

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/tracer/attach"
)

// WriteAttachJSON writes r as hoplat.attach.v1, indented.
func WriteAttachJSON(w io.Writer, r *attach.Report) error {
	return writeIndented(w, r)
}

// WriteAttach writes hopbench attach's report as hoplat's other text
// reports read: a head line, one table per direction, the tracer's cost,
// the note.
func WriteAttach(w io.Writer, r *attach.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "attach: %s (pid %s), threads %d, %.1f s, connections %d\n",
		r.Target.Comm, pidList(r.Target.PIDs), r.Target.Threads, r.DurationS, r.Connections)
	for _, d := range r.Directions {
		writeAttachDirection(&b, d)
	}
	writeAttachTracer(&b, r.Tracer, r.DurationS)
	if r.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", r.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAttachDirection is one direction's table: the residence's
// quantiles, its split in µs and the split drawn as a bar.
func writeAttachDirection(b *strings.Builder, d attach.DirectionReport) {
	fmt.Fprintf(b, "\n%s: %d chunks, %d bytes\n", d.Name, d.Chunks, d.Bytes)
	if d.Chunks == 0 {
		return
	}
	res := d.ResidenceUs
	fmt.Fprintf(b, "  %-14s %10s %10s %10s %10s\n", "residence µs", "p50", "p99", "p99.9", "mean")
	fmt.Fprintf(b, "  %-14s %10.2f %10.2f %10.2f %10.2f\n", "", res.P50, res.P99, res.P999, res.Mean)
	s := d.SplitUs
	fmt.Fprintf(b, "  %-14s %10s %10s %10s %10s\n", "split µs", "blocked", "runnable", "on_cpu", "softirq")
	fmt.Fprintf(b, "  %-14s %10.2f %10.2f %10.2f %10.2f\n", "", s.Blocked, s.Runnable, s.OnCPU, s.Softirq)
	fmt.Fprintf(b, "  %-14s [%s]  . blocked  - runnable  # on_cpu  ~ softirq\n", "", splitBar(s))
}

// writeAttachTracer is the tracer's own account: its records and their
// cost, the duty it ran at, and where its own work ran.
func writeAttachTracer(b *strings.Builder, t attach.TracerReport, durationS float64) {
	fmt.Fprintf(b, "\ntracer: %d events, %d lost, %.0f ns per event, floor %.1f%% of the mean residence\n",
		t.Events, t.Lost, t.PerEventNs, t.FloorPct)
	if t.DutyPct > 0 && t.DutyPct < 100 {
		fmt.Fprintf(b, "  hooks attached %.1f s of %.1f s (duty %g%%): the chunks are a sample, and the proxy\n"+
			"  pays the tracer's cost only while attached\n", t.TracedS, durationS, t.DutyPct)
	}
	if t.CPUs != "" {
		cpus := "CPU"
		if strings.ContainsAny(t.CPUs, ",-") {
			cpus = "CPUs"
		}
		fmt.Fprintf(b, "  the tracer's own work ran on %s %s, off the proxy's\n", cpus, t.CPUs)
	}
}

// splitBarWidth is the split bar's width in columns.
const splitBarWidth = 40

// splitBar draws the split: one character per part, in proportion, the
// last part taking what rounding left.
func splitBar(s attach.SplitUs) string {
	total := s.Sum()
	if total <= 0 {
		return ""
	}
	var b strings.Builder
	used := 0
	parts := []float64{s.Blocked, s.Runnable, s.OnCPU, s.Softirq}
	for i, v := range parts {
		n := int(math.Round(v / total * splitBarWidth))
		if i == len(parts)-1 {
			n = splitBarWidth - used
		}
		n = max(0, min(n, splitBarWidth-used))
		b.WriteString(strings.Repeat(string(".-#~"[i]), n))
		used += n
	}
	return b.String()
}

// pidList joins the first eight PIDs and counts the rest.
func pidList(v []int) string {
	s := make([]string, 0, min(len(v), 9))
	for _, i := range v[:min(len(v), 8)] {
		s = append(s, strconv.Itoa(i))
	}
	if len(v) > 8 {
		s = append(s, fmt.Sprintf("… %d in all", len(v)))
	}
	return strings.Join(s, ",")
}

package attach

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/stats"
)

// Schema names the JSON report's layout (DESIGN.md).
const Schema = "hoplat.attach.v1"

// Report is hoplat.attach.v1.
type Report struct {
	Schema      string            `json:"schema"`
	Target      TargetReport      `json:"target"`
	DurationS   float64           `json:"duration_s"`
	Connections int               `json:"connections"`
	Directions  []DirectionReport `json:"directions"`
	Tracer      TracerReport      `json:"tracer"`
	// Windows are each traced window's own figures, in the order traced:
	// the samples hopbench compare tests a change on.
	Windows []WindowReport `json:"windows"`
	// WindowsDropped counts the earliest windows left out of Windows to
	// keep it within maxWindows on a long session.
	WindowsDropped int          `json:"windows_dropped,omitempty"`
	Note           string       `json:"note"`
	Env            affinity.Env `json:"env"`
}

// TargetReport names what was attached to.
type TargetReport struct {
	PIDs    []int  `json:"pids"`
	Comm    string `json:"comm"`
	Threads int    `json:"threads"`
}

// DirectionReport is one direction's chunks: the residence's quantiles
// and its split, means per chunk that sum to the mean residence.
type DirectionReport struct {
	Name        string      `json:"name"`
	Chunks      int64       `json:"chunks"`
	Bytes       int64       `json:"bytes"`
	ResidenceUs ResidenceUs `json:"residence_us"`
	SplitUs     SplitUs     `json:"split_us"`
	hist        *stats.Histogram
}

// WindowReport is one window's chunks: when it began, how long the
// hooks were attached, and each direction's chunks, residence p50 and
// split (means per chunk, µs).
type WindowReport struct {
	Start      time.Time         `json:"start"`
	DurationS  float64           `json:"duration_s"`
	Chunks     int64             `json:"chunks"`
	Directions []WindowDirection `json:"directions"`
}

// WindowDirection is one direction of one window.
type WindowDirection struct {
	Name           string  `json:"name"`
	Chunks         int64   `json:"chunks"`
	ResidenceP50Us float64 `json:"residence_p50_us"`
	SplitUs        SplitUs `json:"split_us"`
}

// maxWindows bounds Report.Windows: a day of windows at the default
// window and duty (one every 2 s), beyond which the earliest are dropped.
const maxWindows = 43200

// ResidenceUs are quantiles and the mean, µs.
type ResidenceUs struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Mean float64 `json:"mean"`
}

// SplitUs is Split's means per chunk, µs.
type SplitUs struct {
	Blocked  float64 `json:"blocked"`
	Runnable float64 `json:"runnable"`
	OnCPU    float64 `json:"on_cpu"`
	Softirq  float64 `json:"softirq"`
}

// TracerReport is the tracer's own account: its records, those lost, the
// calibrated cost of one, and floor_pct, the share of the mean residence
// the records per chunk cost at that price (an upper bound: a record
// outside a chunk's residence delays no chunk), paid only while the hooks
// are attached: traced_s of the session's duration_s, duty_pct of the
// time asked for (Config.Duty).
type TracerReport struct {
	Events     uint64  `json:"events"`
	Lost       uint64  `json:"lost"`
	PerEventNs float64 `json:"per_event_ns"`
	FloorPct   float64 `json:"floor_pct"`
	TracedS    float64 `json:"traced_s"`
	DutyPct    float64 `json:"duty_pct"`
	// CPUs are where the tracer's own process ran (reading the records,
	// matching chunks), where it kept off the target's CPUs; empty where
	// it shared them.
	CPUs string `json:"cpus,omitempty"`
}

// summary sums one direction's chunks.
type summary struct {
	hist          *stats.Histogram
	bytes         int64
	split         [4]time.Duration
	residenceSums time.Duration
}

func newSummary() *summary { return &summary{hist: stats.NewHistogram()} }

// reset empties s for the next window, its histogram kept: one is 216 KiB.
func (s *summary) reset() {
	s.hist.Reset()
	s.bytes, s.split, s.residenceSums = 0, [4]time.Duration{}, 0
}

func (s *summary) add(c Chunk) {
	s.hist.Record(int64(c.Residence()))
	s.bytes += int64(c.Bytes)
	s.split[0] += c.Split.Blocked
	s.split[1] += c.Split.Runnable
	s.split[2] += c.Split.OnCPU
	s.split[3] += c.Split.Softirq
	s.residenceSums += c.Residence()
}

// window is s as one window's direction.
func (s *summary) window(d Direction) WindowDirection {
	r := s.report(d)
	return WindowDirection{Name: r.Name, Chunks: r.Chunks, ResidenceP50Us: r.ResidenceUs.P50, SplitUs: r.SplitUs}
}

func (s *summary) report(d Direction) DirectionReport {
	r := DirectionReport{Name: d.String(), Chunks: s.hist.Count(), Bytes: s.bytes, hist: s.hist}
	n := float64(r.Chunks)
	if n == 0 {
		return r
	}
	mean := func(v time.Duration) float64 { return round2(stats.Us(int64(v)) / n) }
	r.ResidenceUs = ResidenceUs{
		P50:  round2(stats.Us(s.hist.Quantile(50))),
		P99:  round2(stats.Us(s.hist.Quantile(99))),
		P999: round2(stats.Us(s.hist.Quantile(99.9))),
		Mean: mean(s.residenceSums),
	}
	r.SplitUs = SplitUs{Blocked: mean(s.split[0]), Runnable: mean(s.split[1]), OnCPU: mean(s.split[2]), Softirq: mean(s.split[3])}
	return r
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// Sum is the split's total, which is the mean residence.
func (s SplitUs) Sum() float64 { return s.Blocked + s.Runnable + s.OnCPU + s.Softirq }

// joinInts names the PIDs in an error: the first eight, then the count.
func joinInts(v []int) string {
	s := make([]string, 0, len(v))
	for _, i := range v {
		s = append(s, fmt.Sprint(i))
	}
	if len(s) > 8 {
		s = append(s[:8], fmt.Sprintf("… %d in all", len(v)))
	}
	return strings.Join(s, ",")
}

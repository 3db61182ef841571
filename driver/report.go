package driver

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hoplat/hoplat/results"
)

// Schema names the JSON contract of hopbench's report, which CheckJSON checks.
const Schema = "hoplat.hopbench.v1"

// Report is everything one hopbench invocation measured.
type Report struct {
	Schema   string       `json:"schema"`
	Config   ReportConfig `json:"config"`
	Env      results.Env  `json:"env"` // the machine it ran on, pinning obtained included
	Paths    []PathResult `json:"paths"`
	Chains   []Chain      `json:"chains,omitempty"`
	Skipped  []Skip       `json:"skipped"`
	Verdicts []string     `json:"verdicts"`
	Warnings []string     `json:"warnings,omitempty"` // e.g. a component that did not stop cleanly
	Elapsed  float64      `json:"elapsed_s"`
}

// ReportConfig is the configuration the report was made with, as it ran
// (defaults filled in).
type ReportConfig struct {
	Backend        string    `json:"backend"`
	Proto          string    `json:"proto"`
	Command        string    `json:"command,omitempty"`
	Paths          []string  `json:"paths"`
	Threads        []int     `json:"threads"`
	TimeS          float64   `json:"time_s"`
	WarmupS        float64   `json:"warmup_s"`
	Rounds         int       `json:"rounds"`
	Discard        int       `json:"discard"`
	Hops           []int     `json:"hops,omitempty"`
	ServiceTimesUs []float64 `json:"service_times_us,omitempty"`
	Sizes          []int     `json:"sizes,omitempty"`
	Rows           []int     `json:"rows,omitempty"`
	Placement      string    `json:"placement,omitempty"`
	Nice           int       `json:"nice,omitempty"`
	RelayLock      string    `json:"relay_lock,omitempty"`
	Stats          bool      `json:"stats"`
}

// PathResult is one path at one thread count and backend setting, over the
// kept rounds.
type PathResult struct {
	Name              string    `json:"name"`
	Relay             Relay     `json:"relay"`
	ClientTransport   Transport `json:"client_transport"`
	UpstreamTransport Transport `json:"upstream_transport"`
	Hops              int       `json:"hops"`
	Threads           int       `json:"threads"`
	ServiceTimeUs     float64   `json:"service_time_us"`
	Size              int       `json:"size"`
	Rows              int       `json:"rows"`
	// LatencyUs is read from the merged histogram of the kept rounds when
	// pingpong sent histograms, else it is the mean of the rounds' figures.
	LatencyUs Latency `json:"latency_us"`
	AddedUs   *Added  `json:"added_us,omitempty"`
	// ConnectUs is the mean over kept rounds of the p50 connection
	// set-up time (TCP or UNIX connect plus the protocol's handshake):
	// what a hop costs once per connection rather than per request.
	ConnectUs float64    `json:"connect_us"`
	TPS       float64    `json:"tps"`
	TPSCI95   [2]float64 `json:"tps_ci95"`
	Errors    int64      `json:"errors"`
	Failed    int        `json:"failed_rounds"`
	Rounds    []Round    `json:"rounds"`
	// RelayUs is the relay's own mean residence time per request (both
	// directions, every hop of the path), from its --stats; KernelUs is
	// what remains of the added latency: socket calls, loopback, wake-ups.
	RelayUs  *float64 `json:"relay_us,omitempty"`
	KernelUs *float64 `json:"kernel_us,omitempty"`

	Hist *hdrhistogram.Histogram `json:"-"` // merged, nanoseconds; nil without histograms
	path Path
}

// Path is the path this result measured.
func (r PathResult) Path() Path { return r.path }

// Added is a path's latency over its baseline direct path, from per-round
// paired differences.
type Added struct {
	Baseline string     `json:"baseline"`
	P50      float64    `json:"p50"`
	P99      float64    `json:"p99"`
	CI95P50  [2]float64 `json:"ci95_p50"`
	P50Pct   float64    `json:"p50_pct"` // P50 as a share of the baseline's p50
	Pairs    int        `json:"pairs"`
}

// Round is one round of one path.
type Round struct {
	Index  int     `json:"index"`
	Kept   bool    `json:"kept"`
	P50    float64 `json:"p50_us"`
	P95    float64 `json:"p95_us"`
	P99    float64 `json:"p99_us"`
	TPS    float64 `json:"tps"`
	Errors int64   `json:"errors"`
	Failed string  `json:"failed,omitempty"`
}

// Chain is the fit of p50 round trip against the number of identical relay
// hops (the report's `chains`): the slope is one hop's cost, free of the
// client's and server's fixed costs, which land in the intercept.
type Chain struct {
	Relay         Relay      `json:"relay"`
	Transport     Transport  `json:"transport"`
	Threads       int        `json:"threads"`
	ServiceTimeUs float64    `json:"service_time_us"`
	Hops          []int      `json:"hops"`
	P50Us         []float64  `json:"p50_us"`
	PerHopUs      float64    `json:"per_hop_us"`
	PerHopCI95    [2]float64 `json:"per_hop_ci95"`
	InterceptUs   float64    `json:"intercept_us"`
	R2            float64    `json:"r2"`
	Points        int        `json:"points"`
}

// Skip is a path that did not run, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

package report

import (
	"slices"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/series"
	"github.com/hoplat/hoplat/stats"
)

// SchemaPingpong names the JSON layout that pingpong --format json writes.
const SchemaPingpong = "hoplat.pingpong.v1"

// maxErrorSamples bounds how many distinct error messages a step reports: a
// failing target repeats itself, and the first few say why.
const maxErrorSamples = 5

// Run is one timed run of the load at a fixed thread count, as the load
// client recorded it. Histograms are the workers' own, merged.
type Run struct {
	Index   int           // the run's number in its step, from 0, as printed
	Elapsed time.Duration // measured length of the run
	// Latency is the round trip from the actual send to the reply.
	Latency *stats.Histogram
	// Corrected is the round trip from the intended send time of an open-loop
	// (paced) client, so that a stall counts against every request it delayed;
	// nil in closed loop.
	Corrected *stats.Histogram
	// Connect is the connection set-up latency; nil or empty when not measured.
	Connect *stats.Histogram
	// Events are the transactions each worker completed, one entry per worker.
	Events []int64
	// Queries counts statements executed (mysql) for qps; 0 means one query
	// per event.
	Queries int64
	Errors  int64
	// Ignored counts, among Errors, the failures the client retried on
	// the same connection, as sysbench's --mysql-ignore-errors does.
	Ignored      int64
	Reconnects   int64
	ErrorSamples []string // first few distinct error messages
	// Wake is, per response read with a kernel receive stamp (pingpong
	// --rx-stamps), the time from the kernel stamping the response's bytes
	// to the client's read returning: the client's wake-up delay. nil when
	// not measured. Unstamped counts responses whose bytes carried no
	// stamp.
	Wake      *stats.Histogram
	Unstamped int64
	// Partial marks a run cut short (pingpong stopped by a signal):
	// Elapsed is then the time it did run, its counts what that time
	// measured.
	Partial bool
}

// Transactions is the events of every worker together.
func (r Run) Transactions() int64 {
	var n int64
	for _, e := range r.Events {
		n += e
	}
	return n
}

// QueryCount is Queries, or Transactions when queries were not counted.
func (r Run) QueryCount() int64 {
	if r.Queries == 0 {
		return r.Transactions()
	}
	return r.Queries
}

// Step is a series of runs at one thread count. The first Discard runs are
// warm-up; the figures of a step are computed over the rest.
type Step struct {
	Threads int
	Discard int
	Runs    []Run
}

// Report is everything one pingpong invocation measured, ready for a
// reporter.
type Report struct {
	Schema string // SchemaPingpong when empty
	Config any    // the configuration the run used, printed as given
	Env    affinity.Env
	Steps  []Step
	// Partial marks a report that covers less than the configuration
	// asked for: stopped before its last run ended. Steps then hold
	// what was measured up to the stop (the run it cut marked Partial,
	// runs never started left out), and Stop says what stopped it and
	// when, which package present words ("interrupted by SIGINT after
	// 1.2s of 10s"). A report read back from JSON has no Stop and keeps
	// those words in PartialReason.
	Partial       bool
	PartialReason string
	Stop          *Stop
}

// Stop is what stopped a run before its end and when: ctx's cause, the
// time measured (warm-ups left out), and the time every run of every
// thread count would have taken.
type Stop struct {
	Cause   error
	Ran     time.Duration
	Planned time.Duration
}

// StepResult holds the figures of one step: what every reporter prints, and
// exactly the "results" entries of the JSON contract. Step-wide latency,
// totals, errors and fairness cover the kept runs only, as the tps series
// does; runs lists every run, discarded ones included.
type StepResult struct {
	Threads int             `json:"threads"`
	TPS     series.Summary  `json:"tps"`
	QPS     *series.Summary `json:"qps,omitempty"` // when queries differ from events
	// SQL is set when the client counted statements (Run.Queries), so the
	// text report heads its counters "SQL statistics" as sysbench does.
	SQL bool `json:"-"`
	// Transactions, Queries and ElapsedS are totals over the kept runs.
	Transactions int64          `json:"transactions"`
	Queries      int64          `json:"queries"`
	ElapsedS     float64        `json:"elapsed_s"`
	Latency      stats.Latency  `json:"latency_us"`
	Corrected    *stats.Latency `json:"latency_corrected_us,omitempty"` // open loop only
	Connect      *stats.Latency `json:"connect_us,omitempty"`           // when measured
	Errors       int64          `json:"errors"`
	Ignored      int64          `json:"ignored_errors"` // among errors: retried on the same connection (sysbench's ignored errors)
	Reconnects   int64          `json:"reconnects"`
	ErrorSamples []string       `json:"error_samples,omitempty"` // from every run
	Fairness     Fairness       `json:"fairness"`
	Runs         []RunResult    `json:"runs"`
	OutlierRuns  []int          `json:"outlier_runs"` // Index of each outlier run, by tps

	// RXWake is the client's wake-up delay per response, from the
	// kernel's receive stamps, over the kept runs; nil unless measured
	// (pingpong --rx-stamps).
	RXWake *Wake `json:"rx_wake_us,omitempty"`

	// The kept runs' histograms merged, for .hgrm files and plots.
	LatencyHist   *stats.Histogram `json:"-"`
	CorrectedHist *stats.Histogram `json:"-"`
	ConnectHist   *stats.Histogram `json:"-"`
	WakeHist      *stats.Histogram `json:"-"`
}

// Wake is the rx_wake_us object: the client's wake-up delays (µs) over
// the responses whose bytes the kernel stamped, Count of them, and how
// many more carried no stamp (read before the stack had switched stamping
// on).
type Wake struct {
	stats.Latency
	Unstamped int64 `json:"unstamped"`
}

// RunResult holds the figures of one run.
type RunResult struct {
	Index      int            `json:"index"`
	Discarded  bool           `json:"discarded"`
	Outlier    bool           `json:"outlier"`
	ElapsedS   float64        `json:"elapsed_s"`
	Events     int64          `json:"events"`
	TPS        float64        `json:"tps"`
	Queries    int64          `json:"queries"`
	QPS        float64        `json:"qps"`
	Errors     int64          `json:"errors"`
	Ignored    int64          `json:"ignored_errors"`
	Reconnects int64          `json:"reconnects"`
	Latency    stats.Latency  `json:"latency_us"`
	Corrected  *stats.Latency `json:"latency_corrected_us,omitempty"`
	// Partial is set on a run cut short (Run.Partial), absent otherwise.
	Partial bool `json:"partial,omitempty"`
}

// Results computes the figures of every step.
func (r Report) Results() []StepResult {
	out := make([]StepResult, len(r.Steps))
	for i, s := range r.Steps {
		out[i] = AnalyzeStep(s)
	}
	return out
}

// AnalyzeStep computes the figures of one step: the tps (and qps) series with
// its outliers, and the kept runs' histograms merged.
func AnalyzeStep(s Step) StepResult {
	tps := make([]float64, len(s.Runs))
	qps := make([]float64, len(s.Runs))
	queriesDiffer, sql := false, false
	for i, run := range s.Runs {
		tps[i] = perSecond(run.Transactions(), run.Elapsed)
		qps[i] = perSecond(run.QueryCount(), run.Elapsed)
		queriesDiffer = queriesDiffer || run.QueryCount() != run.Transactions()
		sql = sql || run.Queries > 0
	}
	res := StepResult{
		Threads:     s.Threads,
		TPS:         series.Analyze(tps, s.Discard),
		SQL:         sql,
		LatencyHist: stats.NewHistogram(),
		Runs:        make([]RunResult, len(s.Runs)),
		OutlierRuns: []int{},
	}
	if queriesDiffer {
		q := series.Analyze(qps, s.Discard)
		res.QPS = &q
	}

	var elapsed time.Duration
	var workers []int64
	for i, run := range s.Runs {
		res.Runs[i] = runResult(run, tps[i], qps[i], res.TPS.IsDiscarded(i), res.TPS.IsOutlier(i))
		res.ErrorSamples = addSamples(res.ErrorSamples, run.ErrorSamples)
		if res.TPS.IsOutlier(i) {
			res.OutlierRuns = append(res.OutlierRuns, run.Index)
		}
		if res.TPS.IsDiscarded(i) {
			continue
		}
		elapsed += run.Elapsed
		res.Transactions += run.Transactions()
		res.Queries += run.QueryCount()
		res.Errors += run.Errors
		res.Ignored += run.Ignored
		res.Reconnects += run.Reconnects
		res.LatencyHist.Merge(run.Latency)
		if run.Corrected != nil {
			if res.CorrectedHist == nil {
				res.CorrectedHist = stats.NewHistogram()
			}
			res.CorrectedHist.Merge(run.Corrected)
		}
		if run.Wake != nil {
			if res.WakeHist == nil {
				res.WakeHist = stats.NewHistogram()
				res.RXWake = &Wake{}
			}
			res.WakeHist.Merge(run.Wake)
			res.RXWake.Unstamped += run.Unstamped
		}
		if run.Connect != nil && run.Connect.Count() > 0 {
			if res.ConnectHist == nil {
				res.ConnectHist = stats.NewHistogram()
			}
			res.ConnectHist.Merge(run.Connect)
		}
		// A kept run is one more stretch of the same load: a worker's
		// events add up across runs, as if sysbench had run longer.
		if len(run.Events) > len(workers) {
			workers = append(workers, make([]int64, len(run.Events)-len(workers))...)
		}
		for w, e := range run.Events {
			workers[w] += e
		}
	}
	res.ElapsedS = elapsed.Seconds()
	res.Latency = stats.LatencyOf(res.LatencyHist)
	if res.CorrectedHist != nil {
		l := stats.LatencyOf(res.CorrectedHist)
		res.Corrected = &l
	}
	if res.ConnectHist != nil {
		l := stats.LatencyOf(res.ConnectHist)
		res.Connect = &l
	}
	if res.WakeHist != nil {
		res.RXWake.Latency = stats.LatencyOf(res.WakeHist)
	}
	res.Fairness = FairnessOf(workers)
	return res
}

func runResult(run Run, tps, qps float64, discarded, outlier bool) RunResult {
	rr := RunResult{
		Index:      run.Index,
		Discarded:  discarded,
		Outlier:    outlier,
		ElapsedS:   run.Elapsed.Seconds(),
		Events:     run.Transactions(),
		TPS:        tps,
		Queries:    run.QueryCount(),
		QPS:        qps,
		Errors:     run.Errors,
		Ignored:    run.Ignored,
		Reconnects: run.Reconnects,
		Latency:    stats.LatencyOf(run.Latency),
		Partial:    run.Partial,
	}
	if run.Corrected != nil {
		l := stats.LatencyOf(run.Corrected)
		rr.Corrected = &l
	}
	return rr
}

func addSamples(have, more []string) []string {
	for _, m := range more {
		if len(have) == maxErrorSamples {
			break
		}
		if !slices.Contains(have, m) {
			have = append(have, m)
		}
	}
	return have
}

package hop

import (
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/stats"
)

// Schema names the JSON contract of hopbench's report.
const Schema = "hoplat.hopbench.v1"

// Report is everything one hopbench invocation measured.
type Report struct {
	Schema string `json:"schema"`
	// Partial is set when the run was stopped before its end (SIGINT,
	// SIGTERM): the figures are over the rounds that completed, and
	// PartialReason says what stopped it and where ("interrupted by
	// SIGINT after round 3 of 11"), which package present words from
	// Stop. Both are absent from a complete report.
	Partial       bool   `json:"partial,omitempty"`
	PartialReason string `json:"partial_reason,omitempty"`
	// Stop is what stopped a partial run and where, as the driver saw
	// it; nil on a complete report and on one read from JSON, which
	// keeps its PartialReason.
	Stop   *Stop        `json:"-"`
	Config ReportConfig `json:"config"`
	Env    affinity.Env `json:"env"` // the machine it ran on, pinning obtained included
	// Machine is what a short probe measured before the first round: the
	// wake-up and loopback-leg constants a hop is explained with, and the
	// environment (idle governor, virtualization, steal over the run).
	Machine  *machine.Machine `json:"machine,omitempty"`
	Paths    []PathResult     `json:"paths"`
	Regimes  []RegimeInfo     `json:"regimes,omitempty"`
	Chains   []Chain          `json:"chains,omitempty"`
	Skipped  []Skip           `json:"skipped"`
	Verdicts []string         `json:"verdicts"`
	Warnings []string         `json:"warnings,omitempty"` // e.g. a component that did not stop cleanly
	// Warned are the warnings as findings, in their order: a text of its
	// own (a component's error), or a path whose traced split and the
	// kernel's count of its relays' CPU stand apart (Trace.SchedstatGap).
	// Package present says them in Warnings; nil on a report read from
	// JSON, which keeps its Warnings.
	Warned []Warning `json:"-"`
	// StatesEvidence is what shows each of Machine.States (aligned with
	// them), which package present says in its Evidence.
	StatesEvidence []StateEvidence `json:"-"`
	// Tracer says how the run's requests were traced: the tracer's
	// calibrated cost per record, or why nothing was traced.
	Tracer *TracerInfo `json:"tracer,omitempty"`
	// TraceEvents is the traced requests' waterfall in the Chrome
	// trace-event format, which WriteDir writes as trace.json.
	TraceEvents []byte  `json:"-"`
	Elapsed     float64 `json:"elapsed_s"`

	// Hosts are a topology run's hosts; none on loopback.
	Hosts []Host `json:"hosts,omitempty"`

	// CommandLine is the command that made the run, and Version the
	// hoplat build that ran it: what a reader needs to repeat it.
	CommandLine []string `json:"command_line,omitempty"`
	Version     string   `json:"version,omitempty"`
	// History is what the run was judged against across invocations
	// (paths[].across_runs); absent when hopbench kept no history.
	History *History `json:"history,omitempty"`
	// Resolution is how a run against a real backend lengthened its
	// rounds until each relay path's added p50 interval excluded zero;
	// absent where it did not (the embedded backend, --time or --runs
	// given).
	Resolution *Resolution `json:"resolution,omitempty"`
	// HostNoise is, per stage, how far the direct paths' rounds spread:
	// the host's own noise, which a relay path's spread is judged
	// against (noise.go); absent where no stage has a direct path.
	HostNoise []HostNoise `json:"host_noise,omitempty"`
	// Sweep is a run of several client instances or servers (sweep.go);
	// such a run has no paths.
	Sweep *Sweep `json:"sweep,omitempty"`
}

// Resolution is how a run lengthened its rounds to resolve every hop:
// the bound and the time spent, the attempts made, the last one's round
// length and count, and where some hop stayed unresolved, the smallest
// hop the run could have told from none and the round length that would
// resolve those measured.
type Resolution struct {
	BoundS     float64 `json:"bound_s"`
	SpentS     float64 `json:"spent_s"`
	Attempts   int     `json:"attempts"`
	TimeS      float64 `json:"time_s"` // the last attempt's round length
	Rounds     int     `json:"rounds"`
	Unresolved int     `json:"unresolved"` // relay paths whose interval still holds zero
	// SmallestUs is the widest distance from an unresolved path's added
	// p50 to its interval's end toward zero: a hop that size or larger
	// this run's rounds would have resolved. SuggestTimeS is a round
	// length (--time), SuggestRuns a count of rounds (--runs) of the
	// length that ran, that would resolve the unresolved paths as
	// measured, were the interval to narrow with the square root of the
	// requests it rests on; 0 where none would.
	SmallestUs   float64 `json:"smallest_us,omitempty"`
	SuggestTimeS float64 `json:"suggest_time_s,omitempty"`
	SuggestRuns  int     `json:"suggest_runs,omitempty"`
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
	// RoundSizing says, per stage, how long its rounds ran and why, when
	// the run sized them from what a request costs.
	RoundSizing []RoundSizing `json:"round_sizing,omitempty"`
	// Proxies are the user's own proxies the run put on paths (--proxy).
	Proxies []ProxyInfo `json:"proxies,omitempty"`
}

// ProxyInfo names a user's proxy and what ran: the command template
// hopbench started it from, or the address of one running already.
type ProxyInfo struct {
	Name    string `json:"name"`
	Path    string `json:"path"` // its path's name in the table ("nginx tcp->tcp")
	Command string `json:"command,omitempty"`
	Address string `json:"address,omitempty"`
}

// RoundSizing is one stage's round length, chosen from a calibration run
// on one of its paths before its rounds: long enough that a round holds
// Target requests of that path (its p50 then rests on that many), never
// shorter than the configured time, and within the run's budget.
type RoundSizing struct {
	Stage     string  `json:"stage"` // the regime, and the sweep values when swept
	Path      string  `json:"path"`  // the calibrated path
	RequestUs float64 `json:"request_us"`
	Target    int     `json:"target_requests"`
	TimeS     float64 `json:"time_s"`   // each round's timed length
	Expected  int     `json:"requests"` // what a round of the calibrated path then holds
	Capped    bool    `json:"capped_by_budget"`
	BudgetS   float64 `json:"budget_s,omitempty"`
	Error     string  `json:"error,omitempty"` // the calibration failed: TimeS is the configured time
}

// MachineNoise is a flagged path's spread shared by Flagged of the run's
// Paths paths: likely the machine's noise, not the path's.
type MachineNoise struct {
	Flagged, Paths int
}

// Warning is one of a report's warnings: Text, or the path whose split
// disagrees with the kernel's count (Split).
type Warning struct {
	Text  string
	Split string
}

// Stop is where a run was stopped before its end: ctx's cause, the
// rounds every cell of the stage reached of the rounds asked for, the
// stage (0-based) among the run's stages and its placement regime, and
// the phase past the rounds that was running, if any.
type Stop struct {
	// Cause is the run's cancellation cause; one with a SignalName
	// method (cli.Interrupted) is said by its signal.
	Cause  error
	Round  int // rounds every cell of the stage completed
	Rounds int // rounds the run asked for
	Stage  int // 0-based
	Stages int
	Regime string
	Phase  StopPhase
}

// StopPhase is what ran past a stage's rounds, or before them, when the
// run was stopped.
type StopPhase int

const (
	PhaseRounds      StopPhase = iota // within the rounds
	PhaseStarting                     // starting the stage's components
	PhaseSizing                       // sizing the stage's rounds
	PhaseConnect                      // the connect-only series
	PhaseTracerFloor                  // measuring the tracer's floor
	PhaseTraced                       // the traced rounds
)

// Warn adds the warning text to r, in Warnings and Warned.
func (r *Report) Warn(text ...string) {
	for _, t := range text {
		r.Warnings = append(r.Warnings, t)
		r.Warned = append(r.Warned, Warning{Text: t})
	}
}

// FloorFailed is a tracer floor not measured: Failed of its Rounds
// rounds failed.
type FloorFailed struct {
	Failed, Rounds int
}

// History is the earlier runs of the same command on the same machine that
// a run was judged against.
type History struct {
	File     string `json:"file"`
	PastRuns int    `json:"past_runs"` // earlier runs of the same command and machine found
	Judged   int    `json:"judged"`    // paths judged across runs
	Flagged  int    `json:"flagged"`   // of those, flagged for moving more than 15%
	// HostMoved lists the stages whose control ran more than 15% from its
	// earlier runs' p50: their hops were also judged at that speed.
	HostMoved []HostMoved `json:"host_moved,omitempty"`
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
	// Regime is how the run placed this path's components: packed (all
	// on one CPU), spread (each on its own CPU as far as cores allow),
	// custom (a --placement spec) or none (unpinned: the scheduler chose,
	// and may have chosen differently from round to round).
	Regime string `json:"regime"`
	// Placement is the CPUs each component was allowed, as obtained.
	Placement map[string]string `json:"placement"`
	// RoundsP50Us is the p50 of each kept round, in round order: the
	// figures Stable is judged on and added_us is paired from.
	RoundsP50Us []float64 `json:"rounds_p50_us"`
	// Stable is false when the kept rounds disagree (two clusters, or
	// the slowest round's p50 over twice the fastest's); UnstableReason
	// then says how, and the likely cause.
	Stable         bool   `json:"stable"`
	UnstableReason string `json:"unstable_reason"`
	// Instability is UnstableReason as findings, which package present
	// says in it; nil on a stable path and on a report read from JSON.
	Instability *Instability `json:"-"`
	// MachineNoise is set on a flagged path (Stable false) whose spread
	// more than one path in five of the run shares, past the most spread:
	// likely the machine's, which the text report says once for the run
	// instead of a line per path. The path stays flagged.
	MachineNoise string `json:"machine_noise,omitempty"`
	// Noisy is MachineNoise as figures, which package present says in
	// it; nil where the path's spread is its own.
	Noisy *MachineNoise `json:"-"`
	// RoundSpreadPct is the spread Stable was judged on, (max/min - 1) in
	// percent: of the kept round p50s without the fastest and slowest
	// where five or more, and without the host's slow rounds
	// (host_noise[].slow_rounds); where the host changed speed
	// (machine.states[]), of each round over its paired direct round. A
	// relay path is flagged where it exceeds its stage's
	// host_noise[].limit_pct.
	RoundSpreadPct float64 `json:"round_spread_pct"`
	// LatencyUs is read from the merged histogram of the kept rounds when
	// pingpong sent histograms, else it is the mean of the rounds' figures.
	LatencyUs Latency `json:"latency_us"`
	AddedUs   *Added  `json:"added_us,omitempty"`
	// AcrossRuns is AddedUs against the same command's earlier runs on
	// this machine, where hopbench keeps a history and it holds two or
	// more: a path more than 15% from their median is flagged.
	AcrossRuns *AcrossRuns `json:"across_runs,omitempty"`
	// ConnectUs is the mean over kept rounds of the p50 connection
	// set-up time (TCP or UNIX connect plus the protocol's handshake):
	// what a hop costs once per connection rather than per request.
	ConnectUs float64    `json:"connect_us"`
	TPS       float64    `json:"tps"`
	TPSCI95   [2]float64 `json:"tps_ci95"`
	Errors    int64      `json:"errors"`
	Ignored   int64      `json:"ignored_errors,omitempty"` // retried on their connection, not among errors
	Resources *Resources `json:"resources,omitempty"`
	Failed    int        `json:"failed_rounds"`
	Rounds    []Round    `json:"rounds"`
	// Unmeasured is set when no round of the path was kept (every one
	// failed, was a warm-up, or never ran in an interrupted run): its
	// figures are then zeros that stand for nothing, not a measurement.
	Unmeasured bool `json:"unmeasured,omitempty"`
	// RelayUs is the relay's own mean residence time per request (both
	// directions, every hop of the path), from its --stats; KernelUs is
	// what remains of the added latency: socket calls, loopback, wake-ups,
	// absent when the residence is longer than the hop's added p50.
	RelayUs  *float64 `json:"relay_us,omitempty"`
	KernelUs *float64 `json:"kernel_us,omitempty"`
	// RelayCPUUs is the CPU time the path's relay processes ran per
	// request over the timed rounds: unlike the residence, time they were
	// preempted (on a shared CPU, by the very process they woke) is not in
	// it. It is the relay code of the decomposition.
	RelayCPUUs *float64 `json:"relay_cpu_us,omitempty"`
	// Kworkers is what the kernel's per-CPU workqueue threads ran per
	// request on a sockmap path, which RelayCPUUs holds; nil on other
	// paths.
	Kworkers *Kworkers `json:"kworkers,omitempty"`
	// Endpoints is the CPU time the client and the server ran per
	// request over the kept rounds; the decomposition takes the direct
	// baseline's off. nil when the run did not read them.
	Endpoints *Endpoints `json:"endpoints,omitempty"`
	// RelayWakeUs is the relays' wake-up delay per request (both ways,
	// every hop) from the kernel's receive stamps: from the bytes queued
	// to the relay's loop running. Event-loop relays on TCP legs only.
	RelayWakeUs *float64 `json:"relay_wake_us,omitempty"`
	// ClientWakeUs is the client's wake-up delay per response over the
	// kept rounds, from the kernel's receive stamps (pingpong
	// --rx-stamps): from the response's bytes queued on the client's
	// socket to its read returning. TCP client legs only.
	ClientWakeUs *float64 `json:"client_wake_us,omitempty"`
	// Connect is the path's connect-only series, run after its rounds.
	Connect *Connect `json:"connect,omitempty"`
	// Decomposition splits AddedUs.P50 into relay code, wake-ups, kernel
	// path and a residual; ExplainedPct is how much of it the first three
	// account for, 100 less the residual's share. Relay paths only;
	// ExplainedPct is absent when AddedUs.P50 is not above zero.
	Decomposition *Decomposition `json:"decomposition_us,omitempty"`
	// Trace is what the tracer saw of the path's requests (method
	// "trace"); nil where it did not run, and Decomposition.Note says why.
	Trace        *Trace   `json:"trace,omitempty"`
	ExplainedPct *float64 `json:"explained_pct,omitempty"`
	// Hosts is where the path's components ran in a topology run.
	Hosts *PathHosts `json:"hosts,omitempty"`

	Hist      *stats.Histogram `json:"-"` // merged; nil without histograms
	path      Path
	traceNote string    // why the path was not traced, for its decomposition's note
	tps       []float64 // the kept rounds' throughput, for the cause of their disagreement
	spread    float64   // max/min of the figure stability was judged on
}

// Path is the path this result measured.
func (r PathResult) Path() Path { return r.path }

// Added is a path's latency over its baseline direct path: the median of
// its per-round paired differences, with that median's interval.
type Added struct {
	Baseline string     `json:"baseline"`
	P50      float64    `json:"p50"`
	P99      float64    `json:"p99"`
	CI95P50  [2]float64 `json:"ci95_p50"`
	P50Pct   float64    `json:"p50_pct"` // P50 as a share of the baseline's p50 (median of its paired round p50s)
	Pairs    int        `json:"pairs"`
	// CILevel is what CI95P50 covers: at least 0.95 from 6 pairs on, less
	// with fewer (see series.Summary.MedianCI95).
	CILevel float64 `json:"ci_level"`
	// Method is "paired" where the host changed speed between rounds
	// (machine.states[]): each round is paired with the baseline's round
	// of the same cycle, or, in the cycle where the host changed, with the
	// neighbouring one whose speed it ran at, and the path's stability is
	// judged on the paired figure. States is then the median difference
	// within each state of the host.
	Method string `json:"method,omitempty"`
	// PairedBy is which paired figure held across the host's speeds, with
	// Method "paired": "difference" (the host added the same time to
	// every round trip; P50 is the median paired difference) or "ratio"
	// (it scaled them; each pair is rescaled to the baseline's speed in
	// the fast state first). Empty where neither held: the plain
	// differences then.
	PairedBy string       `json:"paired_by,omitempty"`
	States   []StateAdded `json:"states,omitempty"`
}

// StateAdded is a path's added p50 within one state of the host: the
// median of its paired differences over that state's rounds.
type StateAdded struct {
	State string  `json:"state"` // fast or slow, as machine.states[].name
	P50   float64 `json:"p50"`
	Pairs int     `json:"pairs"`
}

// Measured reports whether any round of p was kept: a path with none has
// no figures (its zeros stand for nothing), in a report read back from
// JSON as in one just analysed.
func (p PathResult) Measured() bool {
	for _, r := range p.Rounds {
		if r.Kept {
			return true
		}
	}
	return false
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
	Regime        string     `json:"regime,omitempty"`
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

// RegimeInfo is one placement regime of the run and what it asked for.
type RegimeInfo struct {
	Name      string `json:"name"`
	Placement string `json:"placement"` // the spec: same-core, spread, client=0 relay=1; "" when unpinned
	Note      string `json:"note"`      // who shares a CPU with whom
	// Places is Note as the regime's placement, which package present
	// says in it; nil on a report read from JSON.
	Places *RegimePlaces `json:"-"`
}

// RegimePlaces is where a regime put the components: nowhere (Unpinned,
// the scheduler placed them), or each component's CPUs in order; and,
// where hopbench did not start the server, where the server was.
type RegimePlaces struct {
	Unpinned   bool
	Components []ComponentCPUs
	Server     *ServerPlace
}

// ComponentCPUs is a component and the CPUs a regime gave it ("" for any
// CPU).
type ComponentCPUs struct {
	Component, CPUs string
}

// ServerPlace is a server hopbench did not start: External where no
// process of this machine serves it (Why says how that was found), else
// its PID and command (Comm, "" where not read), the CPUs it may run on,
// and whether --backend-cpus pinned it.
type ServerPlace struct {
	External bool
	Why      string
	PID      int
	Comm     string
	CPUs     string
	Pinned   bool
}

// Skip is a path that did not run, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Latency is the latency_us object of the report, in microseconds: the
// fields of a stats.Latency that hoplat.hopbench.v1 has always carried.
type Latency struct {
	Min  float64 `json:"min"`
	Avg  float64 `json:"avg"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Setting is what a series was measured under besides its path: the
// backend's service time and result shape, and the client's thread count.
type Setting struct {
	ServiceTime time.Duration // time the responder spent per request
	Size        int           // echo payload bytes, or bytes per row for mysql
	Rows        int           // mysql rows per result (0: the responder's default)
	Threads     int
	Regime      string // packed, spread, custom, none; "" for a run that did not say
}

// Series is every round of one path at one setting, in round order: what
// the driver collects and Analyze reads.
type Series struct {
	Setting Setting
	Path    Path
	Samples []Sample
	RelayUs *float64 // the relays' own residence per request, from --stats
	// Placement is the CPUs each component obtained (client, relay,
	// server), as read back from the processes.
	Placement map[string]string
	// RelayCPUUs is the CPU time the relay processes ran per request over
	// the timed rounds (threads and children, system calls included).
	RelayCPUUs *float64
	// Kworkers is what the per-CPU kworkers ran per request on a sockmap
	// path, in RelayCPUUs; nil elsewhere.
	Kworkers *Kworkers
	// Endpoints is the client's and the server's CPU time per request;
	// nil when not read.
	Endpoints *Endpoints
	Connect   *Connect // the connect-only series; nil without one
	// RelayWakeUs is the relays' wake-up delay per request, both ways, from
	// the kernel's receive stamps; nil where the legs carry none.
	RelayWakeUs *float64
	// ClientWakeUs is the client's wake-up delay per response over the
	// timed rounds, from the kernel's receive stamps; nil where the
	// client's leg carries none.
	ClientWakeUs *float64
	// Trace is the traced round's summary (OverheadPct not yet set);
	// TraceNote says why there is none.
	Trace     *Trace
	TraceNote string
	// Resources is what the path's processes held at most; nil when not
	// read.
	Resources *Resources
}

// Connect is a connect-only series: many whole connection set-ups (dial,
// the protocol's handshake, quit, close) one after another, not the one
// cold connection a round opens.
type Connect struct {
	P50Us float64 `json:"p50_us"`
	P99Us float64 `json:"p99_us"`
	N     int64   `json:"n"`
}

// Wake is a round's client wake-up per stamped response, as pingpong's
// rx_wake_us object carries it: the delays in µs over the Count responses
// the kernel stamped, and how many more carried no stamp. It has
// pingpong/report.Wake's fields, so that the driver converts one into the
// other and the analysis does not import the client's report.
type Wake struct {
	stats.Latency
	Unstamped int64 `json:"unstamped"`
}

// Sample is one round of one path as the load client measured it.
// Latencies are full round trips in microseconds.
type Sample struct {
	Latency stats.Latency
	Connect float64 // p50 of connection set-up (handshake included), µs; 0 if not reported
	TPS     float64
	Errors  int64
	// Ignored are the failures the client retried on their connection
	// (sysbench's ignored errors: deadlocks, Galera's 1047), not among
	// Errors.
	Ignored int64
	Hist    *stats.Histogram  // nil if the client sent none
	Failed  string            // why the round produced no figures; empty if it did
	Pinning map[string]string // pinning the client reports in its env
	CPUs    string            // CPUs the process was allowed, when placed
	// RXWake is the client's stamped wake-up per response (pingpong
	// --rx-stamps); nil when the round did not stamp.
	RXWake *Wake
	// CPU is the client process's utime+stime, every thread, start-up
	// and warm-up included; 0 when not read.
	CPU time.Duration
	// Statements is the statements per event (an oltp-ro transaction is
	// 16), when the client counted them; 0 otherwise.
	Statements float64
	// MaxRSSKiB is the client process's peak resident set (wait4's
	// ru_maxrss); 0 when not read.
	MaxRSSKiB int64
}

// Resources is the most the path's processes held over its rounds, per
// component: peak resident set (KiB), and the threads and open file
// descriptors counted at the end of each round. Zero where not read (a
// component on an ssh host or not started here). The relay's are the sum
// over its processes (a chain's hops); socat's children, one per
// connection, have exited by the end of a round and are not counted.
type Resources struct {
	ClientRSSKiB  int64 `json:"client_rss_kib"`
	RelayRSSKiB   int64 `json:"relay_rss_kib,omitempty"`
	ServerRSSKiB  int64 `json:"server_rss_kib,omitempty"`
	RelayThreads  int64 `json:"relay_threads,omitempty"`
	ServerThreads int64 `json:"server_threads,omitempty"`
	RelayFDs      int64 `json:"relay_fds,omitempty"`
	ServerFDs     int64 `json:"server_fds,omitempty"`
}

// TracerInfo is the run's tracer: on, with its own cost per record
// (taken off every traced segment), or off and why.
type TracerInfo struct {
	On          bool    `json:"on"`
	PerRecordNs float64 `json:"per_record_ns,omitempty"`
	Note        string  `json:"note,omitempty"`
	Waterfall   int     `json:"waterfall_requests,omitempty"` // requests in trace.json
	// FloorPct is the hooks' bare dispatch cost measured in this run:
	// programs on the tracer's tracepoints that return at once, on the
	// packed direct path's round trips, against the same rounds without
	// them, in percent. A traced round's overhead_pct is read against it
	// (OverheadBand). nil where the run had no packed direct path to
	// measure it on, FloorNote then saying why.
	FloorPct  *float64 `json:"floor_pct,omitempty"`
	FloorNote string   `json:"floor_note,omitempty"`
	// FloorFailed is FloorNote where too many of the floor's rounds
	// failed: Failed of its Rounds. Package present says it in FloorNote.
	FloorFailed *FloorFailed `json:"-"`
	// Wakes are the wake-ups the traced rounds saw on their requests'
	// critical paths, beside what the probe priced them at.
	Wakes *WakeCheck `json:"wakes,omitempty"`
}

// WakeCheck sets the probe's wake-up constants beside the wake-ups the
// run's traced requests waited for: from the waker's sched_waking to the
// woken task on CPU, the tracer's cost taken off.
type WakeCheck struct {
	// CrossIdle are wake-ups onto another CPU than the waker's that was
	// idle: the cross-CPU wake-up the probe's cross-cpu figure times.
	CrossIdle Spread `json:"cross_cpu_idle_us"`
	// SameCPU are wake-ups onto the waker's own CPU: the woken task waits
	// until the waker sleeps or is preempted.
	SameCPU Spread `json:"same_cpu_us"`
	// ProbeCrossUS and ProbeSameUS are the probe's one-way wake-ups over
	// a pipe (wake_us.cross_cpu, wake_us.same_cpu), ProbeExtraUS their
	// difference as the probe's rounds paired them (the "cross-cpu extra"
	// figure); 0 when the probe did not run them.
	ProbeCrossUS float64 `json:"probe_cross_cpu_us,omitempty"`
	ProbeSameUS  float64 `json:"probe_same_cpu_us,omitempty"`
	ProbeExtraUS float64 `json:"probe_cross_extra_us,omitempty"`
}

// Spread is a sample's size and quartiles, in µs.
type Spread struct {
	N   int     `json:"n"`
	P25 float64 `json:"p25"`
	P50 float64 `json:"p50"`
	P75 float64 `json:"p75"`
}

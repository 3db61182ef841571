package relay

import (
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/sockets"
	"github.com/hoplat/hoplat/stats"
)

// Schema names the JSON layout Snapshot.WriteJSON writes.
const Schema = "hoplat.relay.v1"

// Directions of a relayed connection, as indices into per-direction arrays.
const (
	ClientToUpstream = 0
	UpstreamToClient = 1
)

// counters are the relay-wide tallies every engine keeps, updated with
// atomic adds so that a snapshot may read them while loops run.
type counters struct {
	accepted       atomic.Int64
	active         atomic.Int64
	refused        atomic.Int64 // over MaxConns
	upstreamFailed atomic.Int64 // connect to upstream refused or failed
	bytes          [2]atomic.Int64
	chunks         [2]atomic.Int64
	repeated       [2]atomic.Int64 // sockmap: bytes the verdict met twice and dropped
}

// recorder is one loop's (or one shard of goroutines') residence
// histogram: stats.Histogram, the one every hoplat figure is kept in, so
// that residence and round trips share range, precision and clamping. The
// mutex is uncontended except while a snapshot merges it.
type recorder struct {
	mu sync.Mutex
	h  *stats.Histogram
}

func newRecorder() *recorder { return &recorder{h: stats.NewHistogram()} }

// record adds one chunk's residence; Record clamps it into range without
// allocating.
func (r *recorder) record(ns int64) {
	r.mu.Lock()
	r.h.Record(ns)
	r.mu.Unlock()
}

func (r *recorder) mergeInto(h *stats.Histogram) {
	r.mu.Lock()
	h.Merge(r.h)
	r.mu.Unlock()
}

// epoch anchors the monotonic clock reads of the timed paths: time.Since
// reads the vDSO clock once and allocates nothing.
var epoch = time.Now()

func nanotime() int64 { return int64(time.Since(epoch)) }

// DirStats counts one direction of traffic.
type DirStats struct {
	Bytes  int64 `json:"bytes"`
	Chunks int64 `json:"chunks"` // reads that moved data (0 where the runtime spliced unseen)
	// Repeated is what the kernel handed the sockmap engine's verdict a
	// second time, dropped rather than relayed (relay/doc.go).
	Repeated int64 `json:"repeated_bytes,omitempty"`
}

// ConnStats counts connections.
type ConnStats struct {
	Accepted       int64 `json:"accepted"`
	Active         int64 `json:"active"`
	Refused        int64 `json:"refused_max_conns"`
	UpstreamFailed int64 `json:"upstream_failed"`
}

// Residence summarises how long chunks spent inside the relay: from the
// wake-up that found data readable to the write that finished it, in
// nanoseconds.
type Residence struct {
	Count     int64   `json:"count"`
	MinNs     int64   `json:"min_ns"`
	MeanNs    float64 `json:"mean_ns"`
	P50Ns     int64   `json:"p50_ns"`
	P90Ns     int64   `json:"p90_ns"`
	P99Ns     int64   `json:"p99_ns"`
	P999Ns    int64   `json:"p999_ns"`
	MaxNs     int64   `json:"max_ns"`
	Histogram string  `json:"histogram,omitempty"` // stats.Histogram.Encode: HdrHistogram V2 compressed, base64
}

// LoopStats is one event loop's share of the work.
type LoopStats struct {
	Accepted int64 `json:"accepted"`
	// SpinHits and SpinMisses count an adaptive loop's spins (wake.go)
	// that caught the next event and that ran out.
	SpinHits   int64 `json:"spin_hits"`
	SpinMisses int64 `json:"spin_misses"`
	// Batches counts the epoll engine's batched wake-ups, BatchedReads
	// the reads made in them (batch_linux.go): their ratio is the batch's
	// mean size.
	Batches      int64 `json:"batches"`
	BatchedReads int64 `json:"batched_reads"`
	// OwnWindows and SharedWindows count the windows (OwnWindow) in which
	// a loop that watches its CPU (wake "adaptive while its CPU is its
	// own") did not wait for it, and so polled in the next, or waited
	// while another task ran there, and so slept.
	OwnWindows    int64 `json:"own_windows,omitempty"`
	SharedWindows int64 `json:"shared_windows,omitempty"`
}

// SnapshotConfig is the configuration a snapshot reports it ran with.
type SnapshotConfig struct {
	// Listen is the listen address as given, with the host and port
	// the listener really bound (the kernel's choice for port 0, the
	// default host when none was named): tcp4-listen:43567,bind=127.0.0.1.
	Listen   string `json:"listen"`
	Connect  string `json:"connect"`
	Engine   Engine `json:"engine"`
	Workers  int    `json:"workers"`
	Spin     bool   `json:"spin"`
	BusyPoll string `json:"busy_poll"`
	// Wake is how the event loops wait, as chosen (sleep, spin,
	// busy-poll D, adaptive), and WakeWhy why, in words the command that
	// writes the snapshot (hoprelay) composes from WakeRule and WakeCPUs;
	// empty for engines without loops of their own.
	Wake     string   `json:"wake,omitempty"`
	WakeWhy  string   `json:"wake_why,omitempty"`
	WakeRule WakeRule `json:"-"`
	WakeCPUs int      `json:"-"` // the CPUs the loops may run on, where an auto rule read them
	// Batch is the epoll engine's batching: "io_uring", or "off (why)".
	Batch string `json:"batch,omitempty"`
	// Slice is the time slice the event loops' threads run with, as the
	// kernel granted it ("3ms"), or "kernel default" and why; empty for
	// engines without loops of their own, or before a loop ran.
	Slice    string `json:"slice,omitempty"`
	CPUs     []int  `json:"cpus"`
	Lock     Lock   `json:"lock"`
	Buffer   int    `json:"buffer"`
	MaxConns int    `json:"max_conns"`
	Timed    bool   `json:"timed"`
	// Balance and Retry say how a relay with several upstreams chose
	// among them; absent with one.
	Balance Balance `json:"balance,omitempty"`
	Retry   string  `json:"retry,omitempty"`
}

// Snapshot is the relay's state at one instant.
type Snapshot struct {
	Schema string `json:"schema"`
	// Partial marks a snapshot taken while Serve runs (hoprelay's
	// SIGUSR1), or after a Serve that closed connections still live when
	// it stopped (at the end of Config.Grace, or Close), WhileServing
	// or Cut saying which: their bytes and residence are counted up to
	// then. One taken after Serve returned with every connection ended
	// by its peers is whole and leaves them out. PartialReason is the
	// reason in words, which the command that writes the snapshot
	// (hoprelay) composes from WhileServing and Cut.
	Partial       bool   `json:"partial,omitempty"`
	PartialReason string `json:"partial_reason,omitempty"`
	WhileServing  bool   `json:"-"` // taken while Serve runs
	// Cut is how many connections were still open, closed by the relay,
	// when Serve stopped.
	Cut         int64          `json:"-"`
	Time        time.Time      `json:"time"`
	Config      SnapshotConfig `json:"config"`
	Env         affinity.Env   `json:"env"`
	Connections ConnStats      `json:"connections"`
	// Directions are indexed by ClientToUpstream and UpstreamToClient.
	Directions struct {
		ClientToUpstream DirStats `json:"client_to_upstream"`
		UpstreamToClient DirStats `json:"upstream_to_client"`
	} `json:"directions"`
	// Residence is absent when nothing was timed (Stats off, or the
	// sockmap engine, whose bytes never pass through user space).
	Residence Residence `json:"residence,omitzero"`
	// Wakes is, per chunk read from a TCP socket, the time between the
	// kernel stamping the bytes (SO_TIMESTAMPING, software receive) and
	// the loop's wake-up that read them: the relay's wake-up delay. Event
	// loop engines in timed runs; UNIX sockets carry no stamps.
	Wakes *Residence `json:"wakes,omitempty"`
	// Loops lists, per event loop, the connections it accepted: how the
	// listener spread them (epoll and splice engines only).
	Loops []LoopStats `json:"loops,omitempty"`
	// Upstreams is, for a relay with several upstreams, each one's
	// connections and failed connects, in the order given (Connect is the
	// first).
	Upstreams []UpstreamStats `json:"upstreams,omitempty"`
	// Route counts a MySQL router's statements and where they went
	// (Config.Route conn or rw); absent for a byte relay.
	Route *RouteStats `json:"route,omitempty"`
}

// WriteJSON writes s as one indented JSON document.
func (s Snapshot) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

func (r *Relay) snapshot(recs []*recorder, loops []LoopStats) Snapshot {
	c := &r.counters
	s := Snapshot{Schema: Schema, Time: time.Now().UTC(), Env: affinity.CollectEnv()}
	s.Config = SnapshotConfig{
		Listen: r.boundListen().String(), Connect: r.connect.String(), Engine: r.cfg.Engine,
		Workers: r.cfg.Workers, Spin: r.cfg.Spin, BusyPoll: r.cfg.BusyPoll.String(), CPUs: r.cfg.CPUs, Lock: r.cfg.Lock,
		Wake: r.wake.Strategy, WakeRule: r.wake.Rule, WakeCPUs: r.wake.CPUs, Batch: r.batch,
		Buffer: r.cfg.Buffer, MaxConns: r.cfg.MaxConns, Timed: r.cfg.Stats,
	}
	if e, ok := r.eng.(interface{ sliceGranted() string }); ok {
		s.Config.Slice = e.sliceGranted()
	}
	if s.Config.CPUs == nil {
		s.Config.CPUs = []int{}
	}
	s.Connections = ConnStats{
		Accepted: c.accepted.Load(), Active: c.active.Load(),
		Refused: c.refused.Load(), UpstreamFailed: c.upstreamFailed.Load(),
	}
	s.Directions.ClientToUpstream = DirStats{c.bytes[0].Load(), c.chunks[0].Load(), c.repeated[0].Load()}
	s.Directions.UpstreamToClient = DirStats{c.bytes[1].Load(), c.chunks[1].Load(), c.repeated[1].Load()}
	s.Loops = loops
	if len(r.pool.ups) > 1 {
		s.Config.Balance, s.Config.Retry = r.cfg.Balance, r.cfg.Retry.String()
		s.Upstreams = r.pool.stats()
	}
	s.Residence = *summary(recs, true)
	if r.cfg.Route != RouteBytes {
		s.Route = r.route.stats(r.cfg.Route)
	}
	return s
}

// boundListen is the listen address as asked with the host and port the
// listener bound; as asked before the engine has bound it.
func (r *Relay) boundListen() sockets.Addr {
	a := r.listen
	if !a.IsUnix() && r.bound.Network != "" {
		a.Host, a.Port = r.bound.Host, r.bound.Port
	}
	return a
}

// summary merges recorders into a Residence, with the histogram when
// encoded; nil when there are no recorders.
func summary(recs []*recorder, encode bool) *Residence {
	if len(recs) == 0 && !encode {
		return nil
	}
	h := stats.NewHistogram()
	for _, rec := range recs {
		rec.mergeInto(h)
	}
	r := &Residence{
		Count: h.Count(), MinNs: h.Min(), MeanNs: h.Mean(),
		P50Ns: h.Quantile(50), P90Ns: h.Quantile(90), P99Ns: h.Quantile(99),
		P999Ns: h.Quantile(99.9), MaxNs: h.Max(),
	}
	if encode && h.Count() > 0 {
		// Encode's text is base64 already; encoding it once more, as
		// this did before, made a field no HdrHistogram reader takes.
		if enc, err := h.Encode(); err == nil {
			r.Histogram = enc
		}
	}
	return r
}

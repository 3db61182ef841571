package present

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/stats"
)

// Every progress line fits the width, whatever the message: a long one
// wraps at spaces under its first line, and the words come through whole.
func TestProgressFitsTheWidth(t *testing.T) {
	long := strings.Repeat("a reply stalled past the end of its round ", 8)
	for _, level := range []ProgressLevel{ProgressRounds, ProgressLive, ProgressPaths} {
		var out bytes.Buffer
		p := NewProgress(&out, level)
		p.Event(event.Warning{Err: errors.New(long)})
		path := hop.Path{Relay: hop.Goroutine, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1}
		p.Event(event.RoundBegun{Stage: 1, Stages: 2, Regime: "spread", Round: 0, Rounds: 7, WarmUp: true, Cell: 11, Cells: 12, Path: path, Threads: 128})
		p.Event(event.RoundEnded{Path: path, Threads: 128, Sample: hop.Sample{TPS: 1234567, Latency: stats.Latency{P50: 12345.6, P95: 123456.7}, Errors: 1234}})
		p.Event(event.RoundBegun{Stage: 1, Stages: 2, Regime: "spread", Round: 0, Rounds: 7, WarmUp: true, Cell: 10, Cells: 12, Path: path, Threads: 128})
		p.Event(event.RoundEnded{Path: path, Threads: 128, Sample: hop.Sample{Failed: long}})
		p.Event(event.Ended{})
		text := strings.ReplaceAll(out.String(), "\r\033[K", "\n")
		for _, line := range strings.Split(text, "\n") {
			if n := len([]rune(line)); n > ProgressWidth {
				t.Errorf("level %d: line of %d columns: %q", level, n, line)
			}
		}
		if got := strings.Join(strings.Fields(strings.ReplaceAll(text, "hopbench:", "")), " "); !strings.Contains(got, strings.TrimSpace(long)) {
			t.Errorf("level %d: the long message lost words:\n%s", level, out.String())
		}
		if !strings.Contains(text, "stage 2/2 spread round 1/7 (warm-up): 12 paths") {
			t.Errorf("level %d: no round line:\n%s", level, text)
		}
	}
}

// A run's events say, at each level, the lines in testdata/progress.txt:
// the wording, wrapping and status-line escapes hopbench's progress has.
func TestProgressGolden(t *testing.T) {
	f := machine.NewFigure("pipe same-cpu", "0", []float64{1.0, 1.1, 1.0, 1.1, 1.6, 1.6, 1.7, 1.6}, 8000)
	m := machine.Machine{Virtualization: "kvm", Container: "docker", CPUIdle: machine.CPUIdle{Governor: "haltpoll", Driver: "haltpoll"},
		Wake: machine.WakeUS{SameCPU: 1.1, CrossCPU: 25.1}, Leg: machine.LegUS{TCP: 1.1, UNIX: 0.5}, Figures: []machine.Figure{f}, SMT: true, IsolatedCPUs: "1"}
	direct := hop.Path{Relay: hop.Direct, Client: hop.TCP, Upstream: hop.TCP}
	epoll := hop.Path{Relay: hop.Epoll, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1}
	round := func(round, cell int, path hop.Path, threads int) event.RoundBegun {
		return event.RoundBegun{Stage: 0, Stages: 2, Regime: "packed", Round: round, Rounds: 2, WarmUp: round < 1,
			Cell: cell, Cells: 2, Path: path, Threads: threads}
	}
	run := []event.Event{
		event.Probing{},
		event.Probed{Machine: m},
		event.Warning{Err: errors.New("probe: something went wrong")},
		event.Tracing{On: true, PerRecordNs: 52.4},
		event.Tracing{Note: "tracing off (--trace=false)"},
		event.Sized{Sizing: hop.RoundSizing{Stage: "packed", Path: "direct tcp", RequestUs: 12.5, Target: 2000, Expected: 2000}},
		event.Skipped{Skip: hop.Skip{Path: "socat tcp->tcp", Reason: "socat not found (install socat, or run make deps)"}},
		round(0, 0, direct, 1),
		event.RoundEnded{Path: direct, Threads: 1, Sample: hop.Sample{TPS: 144930, Latency: stats.Latency{P50: 6.04, P95: 12.4}, Errors: 3}},
		round(0, 1, epoll, 4),
		event.RoundEnded{Path: epoll, Threads: 4, Sample: hop.Sample{Failed: "no request completed in the round (a reply stalled past its end)"}},
		round(1, 0, direct, 1),
		event.RoundEnded{Path: direct, Threads: 1, Sample: hop.Sample{TPS: 37090, Latency: stats.Latency{P50: 144.2, P95: 1234.5}}},
		event.TracerFloor{Path: direct},
		event.TraceBegun{Regime: "packed", Path: direct},
		event.Traced{Path: direct, Trace: &hop.Trace{Requests: 14656, TracedP50Us: 7.3, IdentityPct: 0.04, CoveragePct: 99.6}},
		event.TraceBegun{Regime: "packed", Path: epoll},
		event.TraceAgain{Regime: "packed", Path: epoll, Why: &hop.OutsideBand{Pct: -12, Lo: -10, Hi: 48.4,
			FloorPct: func() *float64 { v := 11.1; return &v }(), RecordsPct: 27.3}},
		event.Traced{Path: epoll, Note: "no request of the client was traced"},
		event.ConnectBegun{Regime: "packed", Path: direct},
		event.Connected{Path: direct, Connect: &hop.Connect{P50Us: 216, P99Us: 973.4, N: 350}},
		event.ConnectBegun{Regime: "packed", Path: epoll},
		event.Connected{Path: epoll},
		event.ConnectBegun{Regime: "packed", Path: epoll},
		event.Connected{Path: epoll, Err: errors.New("dial unix /tmp/x: connection refused")},
		event.Stopped{Stop: hop.Stop{Cause: signalCause("SIGINT"), Round: 1, Rounds: 2, Stages: 2, Regime: "packed"}},
		event.Ended{},
	}
	var all bytes.Buffer
	for _, level := range []ProgressLevel{ProgressRounds, ProgressLive, ProgressPaths} {
		var out bytes.Buffer
		p := NewProgress(&out, level)
		for _, e := range run {
			p.Event(e)
		}
		fmt.Fprintf(&all, "== level %d\n%s", level, out.String())
	}
	want, err := os.ReadFile("testdata/progress.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(all.Bytes(), want) {
		t.Errorf("progress:\n%s\nwant:\n%s", all.Bytes(), want)
	}
}

// The lines said whole: a resolution's, a sweep's, hopbench galera's, and
// those passed on.
func TestProgressWholeLines(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, ProgressLive)
	for _, e := range []event.Event{
		event.HostStep{Step: hosts.Step{Kind: hosts.NetNSAdded, Host: "client", Namespace: "hoplat-7-client"}},
		event.NodeStep{Step: cluster.Step{Kind: cluster.Joining, Node: "galera2", Endpoint: "10.0.0.2:3306", SST: "rsync"}},
		event.Resolving{Bound: 10*time.Minute + 400*time.Millisecond},
		event.Unresolved{Paths: 3, After: 61*time.Second + 600*time.Millisecond, Growth: 2},
		event.SweepBegun{Instances: 4, Servers: 2, Threads: []int{1, 8}, Runs: 3, Time: 10 * time.Second},
		event.SweepRun{Threads: 8, Run: 1, Runs: 3, TPS: 12345.67, Instances: 4},
		event.GaleraPreparing{Tables: 8, TableSize: 10000, Node: "galera1"},
		event.GaleraPrepared{Took: 12345 * time.Millisecond},
		event.GaleraPath{Path: "haproxy", Host: "10.0.0.1", Port: 3307, Nodes: 3},
		event.GaleraPath{Path: "epoll", Err: errors.New("did not start: no hoprelay")},
		event.GaleraRound{Workload: "oltp_read_only", Round: 0, Rounds: 3},
		event.GaleraRun{Workload: "oltp_read_only", Path: "haproxy", Host: "10.0.0.1", Port: 3307, Threads: 450, Time: 30 * time.Second},
		event.SysbenchLine{Workload: "oltp_read_only", Path: "haproxy", Line: "[ 1s ] thds: 450 tps: 1234.56"},
		event.GaleraFailed{Workload: "oltp_read_only", Path: "haproxy", Err: errors.New("sysbench: exit status 1")},
	} {
		p.Event(e)
	}
	want := `hosts: netns client: added hoplat-7-client
galera: galera2: joining at 10.0.0.2:3306 (state transfer: rsync)
hopbench: against a real backend each round lengthens until every relay path's added p50 interval excludes zero, within 10m0s in all
hopbench: 3 relay paths' intervals hold zero after 1m2s; again with rounds 2 times as long
hopbench: sweep of 4 client instances against 2 servers, threads [1 8], 3 runs of 10s each
hopbench: threads 8, run 2/3: 12345.7 tps summed over 4 instances
galera: preparing 8 tables of 10000 rows through galera1
galera: prepared in 12.3s
galera: haproxy listening on 10.0.0.1:3307 in front of 3 nodes
galera: epoll did not start: no hoprelay
galera: oltp_read_only: round 1 of 3
galera: oltp_read_only through haproxy (10.0.0.1:3307), 450 threads, 30s
  oltp_read_only haproxy [ 1s ] thds: 450 tps: 1234.56
galera: oltp_read_only haproxy: sysbench: exit status 1
`
	if out.String() != want {
		t.Errorf("progress:\n%s\nwant:\n%s", out.String(), want)
	}
}

// signalCause is a cancellation cause that names its signal, as
// cli.Interrupted does.
type signalCause string

func (s signalCause) Error() string      { return "interrupted by " + string(s) }
func (s signalCause) SignalName() string { return string(s) }

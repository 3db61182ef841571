package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/results"
)

// sweepReport runs the analysis on fixed figures: two paths at two
// thread counts, two service times and a chain, with histograms.
func sweepReport(t *testing.T) *Report {
	t.Helper()
	hist := func(us int64) *results.Histogram {
		h := results.NewHistogram()
		for i := range int64(100) {
			h.Record((us + i%7) * 1000)
		}
		return h
	}
	var all []Series
	add := func(p Path, threads int, svc time.Duration, p50 ...float64) {
		s := Series{Stage: Stage{ServiceTime: svc}, Cell: Cell{Path: p, Threads: threads}}
		for _, v := range p50 {
			s.Samples = append(s.Samples, Sample{Latency: Latency{P50: v, P95: v * 1.2, P99: v * 1.5}, TPS: float64(threads) * 1e6 / v, Hist: hist(int64(v))})
		}
		all = append(all, s)
	}
	direct := DirectPath(TCP)
	epoll := Path{Relay: Epoll, Client: TCP, Upstream: TCP, Hops: 1}
	epoll2 := epoll
	epoll2.Hops = 2
	for _, svc := range []time.Duration{0, time.Millisecond} {
		extra := float64(svc.Microseconds())
		for _, threads := range []int{1, 2} {
			add(direct, threads, svc, 25+extra, 26+extra, 24+extra)
			add(epoll, threads, svc, 65+extra, 67+extra, 63+extra)
			add(epoll2, threads, svc, 105+extra, 106+extra, 104+extra)
		}
	}
	paths, chains := Analyze(all, 1, []int{0, 1, 2})
	rep := &Report{Schema: Schema, Paths: paths, Chains: chains, Skipped: []Skip{}}
	rep.Verdicts = Verdicts(rep)
	return rep
}

func TestWriteOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	rep := sweepReport(t)
	if err := WriteDir(dir, rep); err != nil {
		t.Fatal(err)
	}
	want := []string{"report.json", "report.csv", "report.txt", "epoll_tcp-to-tcp_t1_svc0us.hgrm", "direct_tcp_t2_svc1000us.hgrm"}
	for _, fig := range []string{"spectrum", "added", "threads-tps", "threads-latency", "service-time", "chains"} {
		want = append(want, fig+".png", fig+".svg")
	}
	for _, name := range want {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	js, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := CheckJSON(js); err != nil {
		t.Error(err)
	}
	hgrm, _ := os.ReadFile(filepath.Join(dir, "epoll_tcp-to-tcp_t1_svc0us.hgrm"))
	// The one .hgrm writer, results.WriteHgrm, in Java HdrHistogram's layout.
	if !strings.HasPrefix(string(hgrm), "       Value     Percentile TotalCount 1/(1-Percentile)\n\n") {
		t.Errorf("hgrm: %.200s", hgrm)
	}
	var text bytes.Buffer
	WriteText(&text, rep)
	for _, s := range []string{"Threads: 2 Mean:", "chain", "throughput peaks at 2 threads"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
}

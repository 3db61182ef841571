package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/tracer/attach"
)

// rulesFile and dashboardFile are the recording rules and the Grafana
// dashboard docs/ ships.
const (
	rulesFile     = "../../docs/attach-rules.yml"
	dashboardFile = "../../docs/attach-dashboard.json"
)

// dashboardExprs are the dashboard's queries, its variables replaced as
// Grafana would with every value selected.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	r := strings.NewReplacer("$__rate_interval", "1m", "$instance", ".*", "$comm", ".*")
	var exprs []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, r.Replace(tg.Expr))
		}
	}
	return exprs
}

// promServer is one Prometheus server the test started.
type promServer struct {
	name string // "native" or "classic"
	addr string // its HTTP API, host:port
}

// startPrometheus runs Debian's Prometheus from a temporary config and
// data folder, scraping target every second and loading the shipped
// rules; native turns on native histograms (Prometheus 2.42 then scrapes
// protobuf and keeps a histogram with native buckets as native only, so
// the classic series come from a second server without the feature). It
// returns once Prometheus logs that it is ready.
func startPrometheus(t *testing.T, native bool, target string) promServer {
	t.Helper()
	bin := peer.Require(t, "prometheus")
	rules, err := filepath.Abs(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	conf := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: [%q]\n"+
		"scrape_configs:\n  - job_name: attach\n    honor_labels: true\n    static_configs:\n      - targets: [%q]\n", rules, target)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	web := freeTCP(t).NetAddr()
	argv := []string{bin, "--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + web, "--log.level=info"}
	name := "classic"
	if native {
		argv = append(argv, "--enable-feature=native-histograms")
		name = "native"
	}
	ready := newLineWatch("Server is ready to receive web requests.")
	p := start(t, hosts.Command{Name: "prometheus " + name, Argv: argv, Foreign: true, Stderr: ready})
	select {
	case <-ready.seen:
	case <-p.Done():
		t.Fatalf("prometheus %s exited before it was ready: %v", name, p.Wait())
	case <-time.After(60 * time.Second):
		t.Fatalf("prometheus %s not ready after 60 s: %s", name, p.Stderr())
	}
	return promServer{name: name, addr: web}
}

// promSample is one element of an instant vector.
type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func (s promSample) float(t *testing.T) float64 {
	t.Helper()
	str, _ := s.Value[1].(string)
	v, err := strconv.ParseFloat(str, 64)
	if err != nil {
		t.Fatalf("sample %v: %v", s, err)
	}
	return v
}

// query asks the HTTP API for expr at at; an error answer fails t.
func (p promServer) query(t *testing.T, expr string, at time.Time) []promSample {
	t.Helper()
	v := url.Values{"query": {expr}, "time": {strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64)}}
	resp, err := http.Get("http://" + p.addr + "/api/v1/query?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status, Error string
		Data          struct {
			ResultType string       `json:"resultType"`
			Result     []promSample `json:"result"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("prometheus %s: %s: %v", p.name, expr, err)
	}
	if r.Status != "success" {
		t.Fatalf("prometheus %s: %s: %s", p.name, expr, r.Error)
	}
	return r.Data.Result
}

// byDirection reads a vector keyed by its direction (and part, if any).
func byDirection(t *testing.T, v []promSample) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, s := range v {
		k := s.Metric["direction"]
		if part := s.Metric["part"]; part != "" {
			k += " " + part
		}
		m[k] = s.float(t)
	}
	return m
}

// rulesLoaded reads the rule groups Prometheus loaded and returns their
// rules' expressions, failing t on a rule in error.
func (p promServer) rulesLoaded(t *testing.T) []string {
	t.Helper()
	resp, err := http.Get("http://" + p.addr + "/api/v1/rules")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Groups []struct {
				Name  string
				Rules []struct {
					Name, Query, Health, LastError string
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, g := range r.Data.Groups {
		for _, rule := range g.Rules {
			if rule.Health == "err" || rule.LastError != "" {
				t.Errorf("prometheus %s: rule %s: %s", p.name, rule.Name, rule.LastError)
			}
			exprs = append(exprs, rule.Query)
		}
	}
	return exprs
}

// within reports whether got is within tol (a share) of want.
func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// TestAttachPrometheus: Debian's Prometheus scrapes hopbench attach
// --listen every second while pingpong drives HAProxy. For the same
// window, its histogram_quantile p50 and p99 per direction, over the
// native histogram and over the classic buckets, agree with attach's JSON
// within the buckets' resolution and the spread of attach's own windows
// (p50), or with each other (p99); the split's rate per part, divided by the chunks' rate, is
// the JSON's mean split within 10% or what separates attach's own
// windows, whichever is more. The shipped
// recording rules load and evaluate without error.
func TestAttachPrometheus(t *testing.T) {
	requireAttach(t, "hopbench attach scraped by Prometheus")
	cpu0 := affinity.NewCPUSet(0)
	server := startPongd(t, cpu0, "tcp:127.0.0.1:0")[0]
	listen := freeTCP(t)
	hp := startHAProxy(t, haproxyConfig(listen, server, 1), listen, cpu0)
	startLoad(t, listen, 1, cpu0)

	metrics := freeTCP(t).NetAddr()
	proms := []promServer{startPrometheus(t, true, metrics), startPrometheus(t, false, metrics)}
	began := time.Now()
	r := attachJSON(t, "--pid", fmt.Sprint(hp.PID()), "--listen", metrics, "--time", "12s", "--duty", "100",
		"--label", "instance=test", "--label", "version=1")
	bothDirections(t, "haproxy", r)
	if len(r.Windows) < 5 {
		t.Fatalf("%d windows, want a dozen s of them", len(r.Windows))
	}
	last := r.Windows[len(r.Windows)-1]
	end := last.Start.Add(time.Duration(last.DurationS * float64(time.Second)))
	// The range reaches back to attach's start: rate() takes the
	// scrapes inside it, and the chunks between the first and the last
	// of them are the sample Prometheus holds.
	rng := fmt.Sprintf("[%ds]", int(math.Ceil(end.Sub(began).Seconds())))
	sel := `{job="attach",instance="test",version="1",comm="haproxy"}`
	p99 := map[string]float64{}
	for _, p := range proms {
		res := "rate(hoplat_proxy_residence_seconds" + sel + rng + ")"
		by := "direction"
		if p.name == "classic" {
			res = "rate(hoplat_proxy_residence_seconds_bucket" + sel + rng + ")"
			by = "direction, le"
		}
		// A quantile Prometheus interpolates lies in the bucket that
		// holds the true one: it may be off by the bucket's ratio less
		// one. The p50 is also set against the sample's edges: the chunks
		// before the first scrape and after the last are not in
		// Prometheus's sample, so it may differ from the whole by as much
		// as attach's own windows' p50s differ from one another. The p99
		// of so short a sample moves with a few hundred chunks at its
		// edges: it is held to the other encoding of the same
		// observations instead (after the loop), and logged beside
		// attach's.
		ratio := attach.NativeBucketFactor
		if p.name == "classic" {
			ratio = classicRatio
		}
		for _, q := range []float64{0.5, 0.99} {
			got := byDirection(t, p.query(t, fmt.Sprintf("histogram_quantile(%g, sum by (%s) (%s))", q, by, res), end))
			for _, d := range r.Directions {
				g := got[d.Name] * 1e6
				if q == 0.99 {
					p99[p.name+" "+d.Name] = g
					t.Logf("prometheus %s: %s p99 %.2f µs, attach %.2f", p.name, d.Name, g, d.ResidenceUs.P99)
					continue
				}
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, w := range r.Windows {
					for _, wd := range w.Directions {
						if wd.Name == d.Name && wd.Chunks > 0 {
							lo, hi = min(lo, wd.ResidenceP50Us), max(hi, wd.ResidenceP50Us)
						}
					}
				}
				want := d.ResidenceUs.P50
				tol := (ratio - 1) + (hi-lo)/want
				t.Logf("prometheus %s: %s p50 %.2f µs, attach %.2f (tolerance %.0f%%)", p.name, d.Name, g, want, 100*tol)
				if !within(g, want, tol) {
					t.Errorf("prometheus %s: %s p50 %.2f µs, attach's JSON %.2f: more than %.0f%% apart", p.name, d.Name, g, want, 100*tol)
				}
			}
		}
		count := "sum by (direction) (histogram_count(rate(hoplat_proxy_residence_seconds" + sel + rng + ")))"
		if p.name == "classic" {
			count = "sum by (direction) (rate(hoplat_proxy_residence_seconds_count" + sel + rng + "))"
		}
		split := byDirection(t, p.query(t, "sum by (direction, part) (rate(hoplat_proxy_split_seconds_total"+sel+rng+
			")) / on (direction) group_left "+count, end))
		for _, d := range r.Directions {
			for _, part := range []struct {
				name string
				want float64
				of   func(attach.SplitUs) float64
			}{
				{"blocked", d.SplitUs.Blocked, func(s attach.SplitUs) float64 { return s.Blocked }},
				{"runnable", d.SplitUs.Runnable, func(s attach.SplitUs) float64 { return s.Runnable }},
				{"on_cpu", d.SplitUs.OnCPU, func(s attach.SplitUs) float64 { return s.OnCPU }},
				{"softirq", d.SplitUs.Softirq, func(s attach.SplitUs) float64 { return s.Softirq }},
			} {
				g := split[d.Name+" "+part.name] * 1e6
				// A part's share of a window moves with what else the
				// CPU serves (a small part, and runnable beside other
				// load): Prometheus's sample leaves out the chunks
				// before its first scrape and after its last, so it
				// may differ from the whole by as much as attach's own
				// windows differ from one another, or by a tenth. The
				// JSON gives µs to two decimals.
				tol := max(0.10*part.want, 0.005)
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, w := range r.Windows {
					for _, wd := range w.Directions {
						if wd.Name == d.Name && wd.Chunks > 0 {
							lo, hi = min(lo, part.of(wd.SplitUs)), max(hi, part.of(wd.SplitUs))
						}
					}
				}
				tol = max(tol, hi-lo)
				t.Logf("prometheus %s: %s %s %.3f µs per chunk, attach %.3f (tolerance %.3f)", p.name, d.Name, part.name, g, part.want, tol)
				if math.Abs(g-part.want) > tol {
					t.Errorf("prometheus %s: %s %s %.3f µs per chunk, attach's JSON %.3f: more than %.3f apart", p.name, d.Name, part.name, g, part.want, tol)
				}
			}
		}
		exprs := p.rulesLoaded(t)
		if len(exprs) == 0 {
			t.Errorf("prometheus %s loaded no rules from %s", p.name, rulesFile)
		}
		answered := 0
		for _, e := range exprs {
			if len(p.query(t, e, end)) > 0 {
				answered++
			}
		}
		t.Logf("prometheus %s: %d rules loaded, %d answer at the window's end", p.name, len(exprs), answered)
		if answered == 0 {
			t.Errorf("prometheus %s: none of the %d rules answers", p.name, len(exprs))
		}
		// Each panel has an answer from one of its queries (native or
		// classic, whichever this server keeps).
		panels := dashboardExprs(t)
		answered = 0
		for _, e := range panels {
			if len(p.query(t, e, end)) > 0 {
				answered++
			}
		}
		t.Logf("prometheus %s: %d of the dashboard's %d queries answer", p.name, answered, len(panels))
		if answered < 4 {
			t.Errorf("prometheus %s: %d of the dashboard's %d queries answer, want one per panel", p.name, answered, len(panels))
		}
	}
	// Both encodings hold the same observations: their p99s lie in
	// buckets that overlap the true one's, so they differ by at most
	// both ratios less one.
	for _, d := range r.Directions {
		n, c := p99["native "+d.Name], p99["classic "+d.Name]
		if tol := (attach.NativeBucketFactor - 1) + (classicRatio - 1); !within(n, c, tol) {
			t.Errorf("%s p99: native %.2f µs, classic %.2f: more than %.0f%% apart", d.Name, n, c, 100*tol)
		}
	}
}

// classicRatio is the ratio of attach's classic buckets, one to the next.
var classicRatio = attach.ClassicBuckets[1] / attach.ClassicBuckets[0]

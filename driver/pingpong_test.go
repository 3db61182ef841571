package driver

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/present/load"
	"github.com/hoplat/hoplat/stats"
)

func encodedHistogram(t testing.TB, values ...int64) string {
	t.Helper()
	h := stats.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func pingpongJSON(hist string) string {
	return fmt.Sprintf(`{"schema":"hoplat.pingpong.v1","config":{},"env":{"pinning":{"worker 0":"0"}},
 "results":[{"threads":1,"tps":{"mean":1000.5,"median":1000,"ci95":[990,1010]},
  "latency_us":{"min":20,"avg":25,"p50":24,"p95":30,"p99":40,"p999":80,"max":120},
  "errors":2,"runs":[],"outlier_runs":[],"connect_us":{"p50":150},"histogram":%q}]}`, hist)
}

func TestParsePingpong(t *testing.T) {
	hist := encodedHistogram(t, 24000, 25000, 26000)
	for _, tc := range []struct {
		name, in string
		err      string
	}{
		{"histogram", pingpongJSON(hist), ""},
		{"histogram base64 twice", pingpongJSON(base64.StdEncoding.EncodeToString([]byte(hist))), ""},
		{"no histogram", pingpongJSON(""), ""},
		{"bad histogram", pingpongJSON("!!!"), "decode histogram"},
		{"wrong schema", `{"schema":"hoplat.relay.v1","results":[]}`, "schema"},
		{"two results", `{"schema":"hoplat.pingpong.v1","results":[{},{}]}`, "2 results"},
		{"partial", `{"schema":"hoplat.pingpong.v1","partial":true,"partial_reason":"interrupted by SIGINT after 1s of 10s","results":[{}]}`,
			"partial report (interrupted by SIGINT after 1s of 10s)"},
		{"not json", "pingpong: dial: refused", "parse pingpong json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParsePingpong([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.TPS != 1000.5 || s.Errors != 2 || s.Connect != 150 || s.Latency.P50 != 24 || s.Latency.P99 != 40 || s.Pinning["worker 0"] != "0" {
				t.Errorf("sample %+v", s)
			}
			if tc.name == "no histogram" {
				if s.Hist != nil {
					t.Error("histogram from nothing")
				}
				return
			}
			if s.Hist == nil || s.Hist.Count() != 3 || s.Hist.Quantile(50) != 25007 { // 25 µs's 16 ns wide bucket, its high end
				t.Errorf("histogram %v", s.Hist)
			}
		})
	}
}

func FuzzParsePingpong(f *testing.F) {
	f.Add([]byte(pingpongJSON(encodedHistogram(f, 1000, 2000))))
	f.Add([]byte(pingpongJSON("")))
	f.Add([]byte(`{"schema":"hoplat.pingpong.v1","results":[{"histogram":"HISTFAAAAB"}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema":"hoplat.pingpong.v1","results":[{"rx_wake_us":{"count":3,"avg":2.5,"unstamped":1}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParsePingpong(data)
		if err == nil && s.Hist != nil && s.Hist.Count() < 0 {
			t.Errorf("negative count")
		}
	})
}

// TestParsePingpongReadsWhatResultsWrites: pingpong's --format json is
// report.WriteJSON, and the driver decodes it with the same types, so a
// round's figures and histogram come back exactly.
func TestParsePingpongReadsWhatResultsWrites(t *testing.T) {
	lat, conn := stats.NewHistogram(), stats.NewHistogram()
	for i := range int64(1000) {
		lat.Record(20_000 + 10*i)
	}
	conn.Record(150_000)
	rep := report.Report{
		Env: affinity.Env{Pinning: map[string]string{"worker 0": "0"}},
		Steps: []report.Step{{Threads: 2, Runs: []report.Run{
			{Elapsed: time.Second, Latency: lat, Connect: conn, Events: []int64{600, 400}, Errors: 2},
		}}},
	}
	var b bytes.Buffer
	if err := load.WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	s, err := ParsePingpong(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := stats.LatencyOf(lat)
	if s.Latency != want || s.TPS != 1000 || s.Errors != 2 || s.Connect != stats.LatencyOf(conn).P50 || s.Pinning["worker 0"] != "0" {
		t.Errorf("sample %+v, want latency %+v, 1000 tps, 2 errors", s, want)
	}
	if s.Hist == nil || s.Hist.Count() != lat.Count() || s.Hist.Quantile(99) != lat.Quantile(99) {
		t.Errorf("histogram did not come back")
	}
}

// pingpong --rx-stamps's summary reaches the sample as written.
func TestParsePingpongRXWake(t *testing.T) {
	in := strings.Replace(pingpongJSON(""), `"errors":2,`,
		`"errors":2,"rx_wake_us":{"count":900,"min":1,"avg":3.5,"p50":3,"p95":6,"p99":9,"p999":20,"max":40,"unstamped":4},`, 1)
	s, err := ParsePingpong([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.RXWake; w == nil || w.Count != 900 || w.Avg != 3.5 || w.P50 != 3 || w.Unstamped != 4 {
		t.Fatalf("rx wake %+v", w)
	}
	if s, _ := ParsePingpong([]byte(pingpongJSON(""))); s.RXWake != nil {
		t.Errorf("rx wake %+v from a round without stamps", s.RXWake)
	}
}

func TestClientWakes(t *testing.T) {
	stamped := func(avg float64, n, unstamped int64) hop.Sample {
		return hop.Sample{RXWake: &hop.Wake{Latency: stats.Latency{Count: n, Avg: avg}, Unstamped: unstamped}}
	}
	for _, tc := range []struct {
		name    string
		samples []hop.Sample
		want    float64 // 0: nil
	}{
		// Round 0 is the warm-up round; the timed rounds' mean is
		// weighted by their stamped responses.
		{"weighted, warm-up round out", []hop.Sample{stamped(100, 10, 0), stamped(2, 300, 0), stamped(4, 100, 5)}, (2*300 + 4*100) / 400.0},
		{"failed round out", []hop.Sample{{}, stamped(2, 300, 0), {Failed: "refused"}}, 2},
		{"a timed round unstamped", []hop.Sample{stamped(1, 10, 0), stamped(2, 300, 0), {}}, 0},
		{"a round mostly unstamped", []hop.Sample{{}, stamped(2, 300, 0), stamped(2, 50, 50)}, 0},
		{"no timed round", []hop.Sample{stamped(1, 10, 0)}, 0},
	} {
		got := clientWakes(tc.samples, 1)
		if (got == nil) != (tc.want == 0) || got != nil && *got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestClientArgsRXStamps(t *testing.T) {
	c := Client{Proto: ProtoEcho, Time: time.Second, RXStamps: true}
	if got := strings.Join(c.Args("pingpong", TCPAddr(9), 1), " "); !strings.HasSuffix(got, " --rx-stamps") {
		t.Errorf("TCP: %s", got)
	}
	if got := strings.Join(c.Args("pingpong", UNIXAddr("/w/p.sock"), 1), " "); strings.Contains(got, "--rx-stamps") {
		t.Errorf("UNIX: %s", got)
	}
	c.Proto, c.User, c.ConnectOnly = ProtoMySQL, "u", true
	if got := strings.Join(c.Args("pingpong", TCPAddr(9), 1), " "); strings.Contains(got, "--rx-stamps") {
		t.Errorf("connect-only: %s", got)
	}
}

// Up to 16 connections pingpong's own 5 s bounds a set-up; beyond, 200
// ms per connection, since they all open at once.
func TestClientArgsConnectTimeout(t *testing.T) {
	c := Client{Proto: ProtoEcho, Time: time.Second}
	if got := strings.Join(c.Args("pingpong", TCPAddr(9), 16), " "); strings.Contains(got, "--connect-timeout") {
		t.Errorf("16 threads: %s", got)
	}
	if got := strings.Join(c.Args("pingpong", TCPAddr(9), 128), " "); !strings.Contains(got, "--connect-timeout 25.6s") {
		t.Errorf("128 threads: %s", got)
	}
	c.ConnectTimeout = time.Minute
	if got := strings.Join(c.Args("pingpong", TCPAddr(9), 1), " "); !strings.Contains(got, "--connect-timeout 1m0s") {
		t.Errorf("set: %s", got)
	}
}

package present_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/analysis/hop/hoptest"
	"github.com/hoplat/hoplat/internal/golden"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/probe/machine"
)

// These tests hold the reports to the contract scripts rely on, as
// hoptest.CheckJSON reads it; they live outside package hop because
// hoptest imports it.

func TestWriteJSONKeepsTheContract(t *testing.T) {
	var b bytes.Buffer
	if err := present.WriteJSON(&b, present.Synthetic()); err != nil {
		t.Fatal(err)
	}
	if err := hoptest.CheckJSON(b.Bytes()); err != nil {
		t.Error(err)
	}
	golden.Check(t, "report.json", b.Bytes())
}

func TestWriteOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	rep := present.Sweep()
	if err := present.WriteFiles(dir, rep); err != nil {
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
	if err := hoptest.CheckJSON(js); err != nil {
		t.Error(err)
	}
	hgrm, _ := os.ReadFile(filepath.Join(dir, "epoll_tcp-to-tcp_t1_svc0us.hgrm"))
	// The one .hgrm writer, hgrm.Write, in Java HdrHistogram's layout.
	if !strings.HasPrefix(string(hgrm), "       Value     Percentile TotalCount 1/(1-Percentile)\n\n") {
		t.Errorf("hgrm: %.200s", hgrm)
	}
	var text bytes.Buffer
	present.WriteText(&text, rep)
	for _, s := range []string{"Threads: 2 Mean:", "chain", "throughput peaks at 2 threads"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
}

// A decomposition from the kernel's stamps names the stamps it stands on;
// one that names a method without them breaks the contract.
func TestCheckExplainedTimestamps(t *testing.T) {
	rep := present.Synthetic()
	rep.Machine = testMachine()
	var epoll *hop.PathResult
	for i := range rep.Paths {
		p := &rep.Paths[i]
		// Three CPUs: the stamps are wake-ups across CPUs, which a
		// timestamps decomposition takes.
		p.Regime = "spread"
		p.Placement = map[string]string{"client": "0", "server": "2"}
		if p.Relay != hop.Direct {
			p.Placement["relay"] = "1"
		}
		if p.ClientTransport != hop.TCP {
			continue
		}
		wake := 3.0
		if p.Relay != hop.Direct {
			wake = 4
			relay := 6.0
			p.RelayWakeUs = &relay
		}
		if p.Relay == hop.Epoll {
			epoll = p
		}
		p.ClientWakeUs = &wake
	}
	hop.Explain(rep.Paths, rep.Machine)
	if epoll == nil || epoll.Decomposition == nil || epoll.Decomposition.Method != "timestamps" {
		t.Fatalf("epoll tcp->tcp not decomposed from its stamps: %+v", epoll)
	}
	out, err := checkExplained(t, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"client_wake_us": 4`, `"relay_wake_us": 6`, `"method": "timestamps"`, `"method": "probe"`} {
		if !bytes.Contains(out, []byte(k)) {
			t.Errorf("report lacks %s", k)
		}
	}
	epoll.ClientWakeUs = nil
	if _, err := checkExplained(t, rep); err == nil || !strings.Contains(err.Error(), "client_wake_us") {
		t.Errorf("timestamps without client_wake_us: %v, want it named", err)
	}
}

// A path's endpoints and the decomposition's share of them pass; a share
// with no reading behind it does not.
func TestCheckExplainedEndpoints(t *testing.T) {
	rep := present.Synthetic()
	rep.Machine = testMachine()
	var epoll *hop.PathResult
	for i := range rep.Paths {
		p := &rep.Paths[i]
		p.Regime = "packed"
		p.Placement = map[string]string{"client": "0", "relay": "0", "server": "0"}
		p.Endpoints = &hop.Endpoints{ClientCPUUs: 10, ServerCPUUs: 5}
		if p.Relay == hop.Epoll && p.ClientTransport == hop.TCP {
			epoll = p
			p.Endpoints.ClientCPUUs = 11.25
		}
	}
	hop.Explain(rep.Paths, rep.Machine)
	if epoll == nil || epoll.Decomposition == nil || epoll.Decomposition.Endpoints == nil {
		t.Fatalf("epoll tcp->tcp has no endpoints: %+v", epoll)
	}
	out, err := checkExplained(t, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"endpoints": 1.25`, `"client_cpu_us": 11.25`, `"server_cpu_us": 5`} {
		if !bytes.Contains(out, []byte(k)) {
			t.Errorf("report lacks %s", k)
		}
	}
	epoll.Endpoints = nil
	if _, err := checkExplained(t, rep); err == nil || !strings.Contains(err.Error(), "without the path's endpoints") {
		t.Errorf("a share of the endpoints with no reading: %v, want it refused", err)
	}
}

// A hop whose added p50 is not above zero keeps its split and has no
// explained share; one that claims a share of nothing breaks the contract.
func TestCheckExplainedNothingAdded(t *testing.T) {
	rep := present.Synthetic()
	rep.Machine = testMachine()
	var epoll *hop.PathResult
	for i := range rep.Paths {
		p := &rep.Paths[i]
		p.Regime = "packed"
		p.Placement = map[string]string{"client": "0", "relay": "0", "server": "0"}
		if p.Relay == hop.Epoll && p.ClientTransport == hop.TCP && p.AddedUs != nil {
			epoll = p
		}
	}
	if epoll == nil {
		t.Fatal("no epoll tcp->tcp in the synthetic report")
	}
	epoll.AddedUs.P50 = -0.4
	hop.Explain(rep.Paths, rep.Machine)
	if epoll.Decomposition == nil || epoll.ExplainedPct != nil {
		t.Fatalf("added p50 -0.4: decomposition %+v, explained %v; want a split and no share", epoll.Decomposition, epoll.ExplainedPct)
	}
	if _, err := checkExplained(t, rep); err != nil {
		t.Fatal(err)
	}
	share := 50.0
	epoll.ExplainedPct = &share
	if _, err := checkExplained(t, rep); err == nil || !strings.Contains(err.Error(), "explained_pct of an added p50") {
		t.Errorf("a share of a negative hop: %v, want it refused", err)
	}
}

// checkExplained writes rep as JSON and checks it against the contract,
// returning what it wrote and the checker's verdict.
func checkExplained(t *testing.T, rep *hop.Report) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	if err := present.WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), hoptest.CheckExplained(b.Bytes())
}

// testMachine is a machine with round constants: 1 µs same CPU, 40 across.
func testMachine() *machine.Machine {
	return &machine.Machine{
		Wake: machine.WakeUS{SameCPU: 1, CrossCPU: 40}, Leg: machine.LegUS{TCP: 1.5, UNIX: 0.5},
		CPUIdle: machine.CPUIdle{Governor: "menu", Driver: "intel_idle"}, Virtualization: "none",
	}
}

package hop_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/golden"
	"github.com/hoplat/hoplat/results/hop"
	"github.com/hoplat/hoplat/results/hop/hoptest"
)

// These tests hold the reports to the contract scripts rely on, as
// hoptest.CheckJSON reads it; they live outside package hop because
// hoptest imports it.

func TestWriteJSONKeepsTheContract(t *testing.T) {
	var b bytes.Buffer
	if err := hop.WriteJSON(&b, hop.SyntheticReport()); err != nil {
		t.Fatal(err)
	}
	if err := hoptest.CheckJSON(b.Bytes()); err != nil {
		t.Error(err)
	}
	golden.Check(t, "report.json", b.Bytes())
}

func TestWriteOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	rep := hop.SweepReport(t)
	if err := hop.WriteDir(dir, rep); err != nil {
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
	// The one .hgrm writer, results.WriteHgrm, in Java HdrHistogram's layout.
	if !strings.HasPrefix(string(hgrm), "       Value     Percentile TotalCount 1/(1-Percentile)\n\n") {
		t.Errorf("hgrm: %.200s", hgrm)
	}
	var text bytes.Buffer
	hop.WriteText(&text, rep)
	for _, s := range []string{"Threads: 2 Mean:", "chain", "throughput peaks at 2 threads"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
}

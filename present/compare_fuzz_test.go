package present

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/analysis/hop"
)

// FuzzCompare reads a report as compare.Load does (the user's file) and compares
// it with itself and with a copy one round short: no panic, every form
// written, and a run against itself never differs.
func FuzzCompare(f *testing.F) {
	for _, file := range []string{"testdata/report.json"} {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"schema":"hoplat.hopbench.v1","paths":[{"name":"epoll tcp->tcp","relay":"epoll","added_us":{"baseline":"direct tcp"},"rounds":[{"index":0,"kept":true,"p50_us":1}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r hop.Report
		if json.Unmarshal(b, &r) != nil {
			return
		}
		var short hop.Report
		json.Unmarshal(b, &short)
		for i := range short.Paths {
			if n := len(short.Paths[i].Rounds); n > 0 {
				short.Paths[i].Rounds = short.Paths[i].Rounds[:n-1]
			}
		}
		c, err := compare.Compare([]compare.Run{{Name: "a", Report: &r}, {Name: "b", Report: &r}, {Name: "c", Report: &short}}, compare.Options{})
		if err != nil {
			t.Fatalf("a run against itself: %v", err)
		}
		for _, row := range c.Rows {
			if row.NewRun == "b" && row.Significant {
				t.Fatalf("a run against itself: %s significant", row.Name)
			}
		}
		var out bytes.Buffer
		if err := WriteComparison(&out, c); err != nil {
			t.Fatal(err)
		}
		if err := WriteComparisonJSON(&out, c); err != nil {
			t.Fatal(err)
		}
	})
}

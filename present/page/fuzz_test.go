package page

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

// FuzzWrite renders any report a JSON file can hold (report.html is drawn
// from the run's report, and compare --html from the user's files): the
// page stays valid, whatever the names, notes and figures hold.
func FuzzWrite(f *testing.F) {
	// Small seeds: the fuzzer minimizes what it finds, and a whole run's
	// report takes it minutes.
	f.Add([]byte(`{"schema":"hoplat.hopbench.v1","verdicts":["<b>&amp;\u0001\ufffe"],"paths":[{"name":"epoll <tcp>->tcp","relay":"epoll","regime":"a\"b","threads":2,` +
		`"latency_us":{"p50":-1,"p99":1e308},"added_us":{"baseline":"direct tcp","p50":-5},"decomposition_us":{"relay_code":-1e9,"method":"x"},"stable":false}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r hop.Report
		if json.Unmarshal(b, &r) != nil {
			return
		}
		var page bytes.Buffer
		if err := Write(&page, &r); err != nil {
			t.Fatal(err)
		}
		if err := checkXHTML(page.Bytes()); err != nil {
			t.Fatalf("%v\n%s", err, page.Bytes())
		}
	})
}

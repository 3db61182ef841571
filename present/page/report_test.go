package page

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/phrase"
	"github.com/hoplat/hoplat/stats"
)

// golden reads a real run's report (hopbench --out's report.json).
func golden(t testing.TB, name string) *hop.Report {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var r hop.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func render(t testing.TB, r *hop.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pageText is the page's text as a reader sees it: tags dropped, entities
// read.
func pageText(page []byte) string {
	var b strings.Builder
	in := false
	for _, c := range string(page) {
		switch {
		case c == '<':
			in = true
			b.WriteByte(' ')
		case c == '>':
			in = false
		case !in:
			b.WriteRune(c)
		}
	}
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'").Replace(b.String())
}

func TestPageIsValid(t *testing.T) {
	for _, name := range []string{"run.json", "sweep.json", "chain.json"} {
		t.Run(name, func(t *testing.T) {
			page := render(t, golden(t, name))
			if err := checkXHTML(page); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A partial run's page says so under its title, and stays valid.
func TestPagePartial(t *testing.T) {
	rep := golden(t, "run.json")
	rep.Partial, rep.PartialReason = true, "interrupted by SIGINT after round 3 of 11"
	page := render(t, rep)
	if err := checkXHTML(page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pageText(page), "PARTIAL REPORT: interrupted by SIGINT after round 3 of 11") {
		t.Error("the page does not say the run is partial")
	}
}

// The checker must catch what a browser would repair in silence.
func TestCheckXHTMLRejects(t *testing.T) {
	ok := "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><meta charset=\"utf-8\"/><title>x</title></head><body>%s</body></html>"
	for name, body := range map[string]string{
		"unclosed":       "<p>text",
		"html entity":    "<p>&nbsp;</p>",
		"self-closed p":  "<p/>",
		"div in p":       "<p><div>x</div></p>",
		"td outside tr":  "<table><td>x</td></table>",
		"script":         "<script>1</script>",
		"remote href":    `<a href="https://example.com/">x</a>`,
		"missing anchor": `<a href="#nowhere">x</a>`,
		"duplicate id":   `<p id="a">x</p><p id="a">y</p>`,
		"handler":        `<p onclick="x()">x</p>`,
		"unknown":        `<blink>x</blink>`,
	} {
		if err := checkXHTML([]byte(strings.Replace(ok, "%s", body, 1))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := checkXHTML([]byte(strings.Replace(ok, "%s", "<p>fine</p>", 1))); err != nil {
		t.Errorf("a valid page: %v", err)
	}
}

// Every path of the report appears in the page with its added p50 as the
// table prints it, and the unstable ones are marked with their reason.
func TestPageHoldsEveryPath(t *testing.T) {
	for _, name := range []string{"run.json", "sweep.json", "chain.json"} {
		t.Run(name, func(t *testing.T) { holdsEveryPath(t, golden(t, name)) })
	}
}

func holdsEveryPath(t *testing.T, r *hop.Report) {
	text := pageText(render(t, r))
	for _, p := range r.Paths {
		if !strings.Contains(text, p.Name) {
			t.Errorf("%s: not in the page", p.Name)
		}
		if !p.Stable && !strings.Contains(text, p.UnstableReason) {
			t.Errorf("%s: unstable, its reason not in the page", p.Name)
		}
	}
	for _, row := range tableRows(text, r) {
		if !row.ok {
			t.Errorf("%s: row lacks its added p50 %s", row.name, row.want)
		}
	}
	for _, v := range r.Verdicts {
		if strings.Count(text, v) != 1 {
			t.Errorf("verdict %q: %d times in the page, want once", v, strings.Count(text, v))
		}
	}
}

type rowCheck struct {
	name, want string
	ok         bool
}

// tableRows finds each path's row in the page text and checks it carries
// the added p50 as "+X" (or "baseline" for a direct path).
func tableRows(text string, r *hop.Report) []rowCheck {
	var out []rowCheck
	sw := sweptOf(r.Paths)
	for _, p := range r.Paths {
		want := "baseline"
		if p.Relay != hop.Direct && p.AddedUs != nil {
			want = signed(p.AddedUs.P50)
		}
		row := p.Name + " " + sw.settingText(p) + "  " + phrase.Us(p.LatencyUs.P50) + "  " + phrase.Us(p.LatencyUs.P99) + "  " + want
		out = append(out, rowCheck{p.Name, want, strings.Contains(collapse(text), collapse(row))})
	}
	return out
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestComparePageIsValid(t *testing.T) {
	a, b := golden(t, "run.json"), golden(t, "run.json")
	b.Env.CPUModel = "another"
	c, err := compare.Compare([]compare.Run{{Name: "old.json", Report: a}, {Name: "new.json", Report: b}}, compare.Options{AllowDifferent: true})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WriteCompare(&page, c); err != nil {
		t.Fatal(err)
	}
	if err := checkXHTML(page.Bytes()); err != nil {
		t.Fatal(err)
	}
	text := pageText(page.Bytes())
	for _, r := range c.Rows {
		if !strings.Contains(text, compare.Label(r)) {
			t.Errorf("%s: not in the page", compare.Label(r))
		}
	}
	if !strings.Contains(text, "machine env.cpu_model") {
		t.Error("the difference is not in the page")
	}
}

// With the run's histograms at hand the spectrum is drawn from them, its
// percentile axis reaching the tail they hold.
func TestSpectrumFromHistograms(t *testing.T) {
	r := golden(t, "chain.json")
	for i := range r.Paths {
		h := stats.NewHistogram()
		for j := range 100_000 {
			h.Record(int64(20_000 + 10*j)) // 20 µs to 1 ms, in ns
		}
		r.Paths[i].Hist = h
	}
	page := render(t, r)
	if err := checkXHTML(page); err != nil {
		t.Fatal(err)
	}
	text := pageText(page)
	if strings.Contains(text, "Drawn from the report's percentiles") {
		t.Error("histograms at hand, yet the spectrum says it is drawn from the JSON's percentiles")
	}
	if !strings.Contains(text, "99.999%") {
		t.Error("100 000 requests a path: the percentile axis stops short of 99.999%")
	}
}

// BenchmarkWrite is what --out's page adds to a run: the default job's
// report rendered once.
func BenchmarkWrite(b *testing.B) {
	r := golden(b, "run.json")
	for b.Loop() {
		var page bytes.Buffer
		if err := Write(&page, r); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(page.Len()))
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/present"
)

// shortRun is a hopbench run short enough to repeat in a test (about 5
// s; a round of 60 ms holds thousands of round trips) and long enough for
// the U test: 10 kept rounds a side reach p =
// 0.00001 at best, far below alpha, where 4 could never go below 0.03.
var shortRun = []string{"--paths", "direct,epoll", "--transports", "tcp,unix", "--placement", "same-core",
	"--runs", "11", "--discard", "1", "--time", "60ms", "--warmup", "20ms", "--trace=false"}

// saveRun runs hopbench with args and keeps its JSON report in dir/name.
func saveRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	_, out := runJSON(t, args...)
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// compareRuns runs `hopbench compare --format json` and reads its rows.
func compareRuns(t *testing.T, args ...string) *compare.Comparison {
	t.Helper()
	cmd, _ := hopbench(t, append([]string{"compare", "--format", "json"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hopbench compare %v: %v\n%s", args, err, stderr.String())
	}
	var c compare.Comparison
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if c.Schema != compare.Schema {
		t.Fatalf("schema %q", c.Schema)
	}
	return &c
}

func compareText(t *testing.T, args ...string) string {
	t.Helper()
	cmd, _ := hopbench(t, append([]string{"compare"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hopbench compare %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// The same command twice finds no hop changed: what a relay adds is taken
// against direct inside each run, in interleaved rounds, so it holds
// while the machine's load shifts between the two invocations; the round
// trips themselves may move with that load (direct tcp was 27.4 µs in
// one invocation and 20.6 in the next on a 2-vCPU AMD guest), and the
// text then says that something
// outside the runs moved. The backend's own 20 µs per request moves every
// direct path's round trip up, significantly, and by about those 20 µs,
// while what the hop adds stays where it was. A set is three runs (the
// command twice, then with --service-time): the two runs of the command
// must compare as the same in every set (the null check, at alpha 0.01);
// a set whose service time is not called, because a degraded side
// withholds the call, is logged and made again, up to three sets.
func TestIntegrationCompareRealRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs: about 30 s a set")
	}
	dir := t.TempDir()
	var a, b, c string
	var problems []string
	// Two runs of one command must compare as the same in every set: the
	// noise rule, not a retry, keeps them apart from a change. Only the
	// service time's call, which a degraded side withholds, may need
	// another set.
	for set := 1; set <= 3; set++ {
		a = saveRun(t, dir, "a.json", shortRun...)
		b = saveRun(t, dir, "b.json", shortRun...)
		c = saveRun(t, dir, "svc.json", append(shortRun, "--service-time", "20us")...)
		if same := sameCommand(t, a, b); len(same) > 0 {
			t.Fatalf("set %d: two runs of one command:\n  %s\n%s", set, strings.Join(same, "\n  "),
				compareText(t, "--alpha", "0.01", a, b))
		}
		problems = nil
		// Either run of the command is the reference the service time
		// is set against: a guest can hold one invocation in a slower
		// state for seconds (every path's round trip a third longer on
		// the 2-vCPU AMD guest), the hop's added µs with them.
		drift := driftOf(t, a, b)
		slow := serviceTime(t, a, c, drift)
		if len(slow) > 0 {
			if fromB := serviceTime(t, b, c, drift); len(fromB) < len(slow) {
				slow = fromB
			}
		}
		problems = append(problems, slow...)
		if len(problems) == 0 {
			break
		}
		t.Logf("set %d of runs:\n  %s\n%s\n%s\n%s", set, strings.Join(problems, "\n  "),
			compareText(t, "--alpha", "0.01", a, b), compareText(t, "--allow-different", a, c), compareText(t, "--allow-different", b, c))
	}
	if len(problems) > 0 {
		t.Fatalf("three sets of runs, the last:\n  %s", strings.Join(problems, "\n  "))
	}
	t.Logf("same command twice:\n%s", compareText(t, "--alpha", "0.01", a, b))
	t.Logf("against --service-time 20us:\n%s", compareText(t, "--allow-different", b, c))

	// A different workload is refused, the difference named first.
	cmd, _ := hopbench(t, "compare", b, c)
	status, stdout, stderr := exitOf(t, cmd)
	if status != 1 || !strings.Contains(stderr, "config.service_times_us") || !strings.Contains(stderr, "--allow-different") || stdout != "" {
		t.Errorf("compare of a different workload: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	// --html writes the same comparison as a page.
	page := filepath.Join(dir, "compare.html")
	cmd, _ = hopbench(t, "compare", "--allow-different", "--html", page, b, c)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"direct tcp", "direct unix", "epoll tcp-&gt;tcp", "epoll unix-&gt;tcp", "config.service_times_us"} {
		if !bytes.Contains(html, []byte(name)) {
			t.Errorf("%s: not in compare.html", name)
		}
	}
}

// sameCommand is what is wrong with the comparison of two runs of one
// command: every path "~", in the text as in the JSON, and no difference.
func sameCommand(t *testing.T, a, b string) []string {
	var out []string
	same := compareRuns(t, "--alpha", "0.01", a, b)
	if len(same.Differences) != 0 {
		out = append(out, fmt.Sprintf("same command, differences %v", same.Differences))
	}
	if len(same.Rows) != 4 {
		t.Fatalf("%d rows, want 4 (direct and epoll, tcp and unix)", len(same.Rows))
	}
	for _, m := range significant(same) {
		out = append(out, "same command: "+m+" changed")
	}
	text := compareText(t, "--alpha", "0.01", a, b)
	moved := false
	for _, r := range same.Rows {
		if r.OldAddedP50Us == nil && r.Significant {
			t.Errorf("%s: a direct path called changed between two runs of one command: it is the control", r.Name)
		}
		if !r.Significant && !strings.Contains(lineOf(text, r.Name), " ~ ") {
			t.Errorf("%s: not significant, yet no \"~\" in its row:\n%s", r.Name, text)
		}
		moved = moved || r.PValue <= same.Alpha && r.OldAddedP50Us == nil
	}
	if said := strings.Contains(text, "something outside the runs did"); said != moved {
		t.Errorf("a direct path moved: %v; the text says something outside the runs did: %v\n%s", moved, said, text)
	}
	if moved {
		// The machine moved between the invocations. That is no failure:
		// the comparison said so, and called no hop changed, which is
		// the null check.
		t.Logf("same command: a direct path moved (the machine changed between the runs), and no change was called:\n%s", text)
	}
	return out
}

// serviceTime is what is wrong with the comparison of a run against one
// whose backend spends 20 µs more per request: every direct p50
// significantly higher, by about those 20 µs, every relay path's higher
// (a relay's rounds can be bimodal on a shared guest, which a U test of
// 10 rounds may not see past), every added p50 "~" or moved by less than
// half of them. Each bound widens by drift: how far the same figure moved
// between two runs of one command, on this machine, in this set.
func serviceTime(t *testing.T, a, c string, drift map[string]float64) []string {
	var out []string
	// --allow-degraded: a path a loaded machine left unstable on one side
	// would withhold the call this checks is made.
	slow := compareRuns(t, "--allow-different", "--allow-degraded", a, c)
	if len(slow.Differences) != 1 || slow.Differences[0].Field != "config.service_times_us" {
		t.Errorf("differences %v, want config.service_times_us alone", slow.Differences)
	}
	for _, r := range slow.Rows {
		if r.OldAddedP50Us != nil && r.NewP50Us <= r.OldP50Us {
			out = append(out, fmt.Sprintf("%s: p50 %.1f -> %.1f µs: not higher", r.Name, r.OldP50Us, r.NewP50Us))
		}
		if r.OldAddedP50Us == nil && (!r.Significant || r.NewP50Us <= r.OldP50Us) {
			out = append(out, fmt.Sprintf("%s: p50 %.1f -> %.1f µs (p %.4f): not significantly higher; kept rounds %v against %v",
				r.Name, r.OldP50Us, r.NewP50Us, r.PValue, keptOf(t, a, r.Name), keptOf(t, c, r.Name)))
		}
		if d, w := r.NewP50Us-r.OldP50Us, drift[r.Name]; r.OldAddedP50Us == nil && (d < 10-w || d > 40+w) {
			out = append(out, fmt.Sprintf("%s: p50 moved %.1f µs for 20 µs of service time (drift %.1f µs between two runs of one command)", r.Name, d, w))
		}
		if r.OldAddedP50Us == nil {
			continue
		}
		if d, w := math.Abs(*r.NewAddedP50Us-*r.OldAddedP50Us), drift[r.Name+" added"]; r.AddedSignificant != nil && *r.AddedSignificant && d >= 10+w {
			out = append(out, fmt.Sprintf("%s: added p50 %.1f -> %.1f µs, significant (drift %.1f µs between two runs of one command)", r.Name, *r.OldAddedP50Us, *r.NewAddedP50Us, w))
		}
	}
	return out
}

// driftOf is how far each path's p50, and each hop's added p50 (its name
// and " added"), moved between a and b, two runs of one command: the
// machine's own movement between invocations, which the service time's
// bounds allow beside its own 20 µs.
func driftOf(t *testing.T, a, b string) map[string]float64 {
	drift := map[string]float64{}
	for _, r := range compareRuns(t, "--alpha", "0.01", a, b).Rows {
		drift[r.Name] = math.Abs(r.NewP50Us - r.OldP50Us)
		if r.OldAddedP50Us != nil && r.NewAddedP50Us != nil {
			drift[r.Name+" added"] = math.Abs(*r.NewAddedP50Us - *r.OldAddedP50Us)
		}
	}
	return drift
}

// keptOf is the sample compare tests for the path name in file.
func keptOf(t *testing.T, file, name string) []float64 {
	run, err := compare.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range run.Report.Paths {
		if p.Name == name {
			return compare.Kept(p)
		}
	}
	return nil
}

// significant names the hops whose added p50 changed.
func significant(c *compare.Comparison) []string {
	var out []string
	for _, r := range c.Rows {
		if r.AddedSignificant != nil && *r.AddedSignificant {
			out = append(out, r.Name+" added")
		}
	}
	return out
}

func lineOf(text, name string) string {
	for _, l := range strings.Split(text, "\n") {
		// A row a degraded side marks starts "! ": the name may say so or not.
		if strings.HasPrefix(strings.TrimPrefix(strings.TrimSpace(l), "! "), strings.TrimPrefix(name, "! ")+" ") {
			return l
		}
	}
	return ""
}

// A run with 5 µs of service time against one without: the direct path
// is called up, the U test on 6 kept rounds a side and the noise of one
// run a side alone to hold it to (the runs differ in workload, so the
// direct path is no control).
func TestIntegrationCompareServiceTime(t *testing.T) {
	peer.Integration(t, "two short hopbench runs")
	dir := t.TempDir()
	short := []string{"--paths", "direct", "--transports", "tcp", "--placement", "same-core",
		"--runs", "7", "--time", "100ms", "--warmup", "30ms", "--trace=false"}
	var problems []string
	// A guest can hold one invocation in a slower state for seconds, and
	// a busy machine fails or splits rounds (a degraded side, on which no
	// change is called): a pair whose direct path was not called up is
	// logged and made again.
	for try := 1; try <= 3; try++ {
		a := saveRun(t, dir, "a.json", short...)
		b := saveRun(t, dir, "svc.json", append(short, "--service-time", "5us")...)
		c := compareRuns(t, "--allow-different", a, b)
		problems = nil
		if len(c.Rows) == 0 {
			t.Fatal("no rows")
		}
		text := compareText(t, "--allow-different", a, b)
		for _, r := range c.Rows {
			if r.OldAddedP50Us != nil {
				t.Fatalf("%s: a relay path in a run of --paths direct", r.Name)
			}
			if !r.Significant || r.DeltaPct <= 0 || !strings.HasPrefix(r.NoiseFrom, "one run a side") {
				problems = append(problems, fmt.Sprintf("try %d: %s %.1f -> %.1f µs (%+.1f%%, p %.3f, noise %.1f%% from %s), significant %v",
					try, r.Name, r.OldP50Us, r.NewP50Us, r.DeltaPct, r.PValue, r.NoisePct, r.NoiseFrom, r.Significant))
			} else if !strings.Contains(lineOf(text, r.Name), "%  ") {
				t.Errorf("%s called up in the JSON, not in the text:\n%s", r.Name, text)
			}
		}
		if len(problems) == 0 {
			t.Logf("%s", text)
			break
		}
		t.Logf("%s\n%s", strings.Join(problems, "\n"), text)
	}
	if len(problems) > 0 {
		t.Fatalf("three pairs of runs, the direct path never called up: %s", strings.Join(problems, "; "))
	}
}

// compare's forms, on reports written to files: a folder read by its
// report.json, repeated runs a side, --within, and a degraded side named
// on its rows.
func TestCompareForms(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r *hop.Report) string {
		var b bytes.Buffer
		if err := present.WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	clean := write("clean/report.json", syntheticRun())
	bad := syntheticRun()
	for i := range bad.Paths {
		if p := &bad.Paths[i]; p.Name == "epoll tcp->tcp" {
			p.Failed, p.Stable, p.UnstableReason = 2, false, "round p50s 61, 62, 95 µs: two clusters"
			p.Rounds[1].Failed = "pingpong: exit status 1"
		}
	}
	degraded := write("bad.json", bad)
	text := func(args ...string) string {
		t.Helper()
		var b bytes.Buffer
		if err := runCompare(args, &b); err != nil {
			t.Fatalf("compare %v: %v", args, err)
		}
		return b.String()
	}

	out := text(filepath.Dir(clean), degraded)
	if !strings.HasPrefix(lineOf(out, "! epoll tcp->tcp"), "! epoll tcp->tcp ") {
		t.Errorf("degraded row not marked:\n%s", out)
	}
	for _, want := range []string{"! epoll tcp->tcp: new: 2 failed rounds (round 1: pingpong: exit status 1)",
		"! epoll tcp->tcp: new: unstable: round p50s 61, 62, 95 µs: two clusters"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	var js bytes.Buffer
	if err := runCompare([]string{"--json", filepath.Dir(clean), degraded}, &js); err != nil {
		t.Fatal(err)
	}
	var c compare.Comparison
	if err := json.Unmarshal(js.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if (r.Name == "epoll tcp->tcp") != (len(r.Degraded) == 2) {
			t.Errorf("%s: degraded %v", r.Name, r.Degraded)
		}
	}

	out = text(clean, degraded, "--", clean, clean)
	if !strings.Contains(out, "old "+clean+" + "+degraded+"\nnew "+clean+" + "+clean+"\n") || !strings.Contains(lineOf(out, "direct tcp"), "8+8") {
		t.Errorf("repeated runs:\n%s", out)
	}
	out = text("--within", clean, "direct tcp", "epoll tcp->tcp")
	if !strings.Contains(out, "two paths of one run, "+clean) || lineOf(out, "direct tcp vs epoll tcp->tcp") == "" {
		t.Errorf("--within:\n%s", out)
	}
}

// Flag values and arguments that make no sense are usage errors (exit 2),
// found before any file is read.
func TestCompareUsage(t *testing.T) {
	for _, args := range [][]string{{"compare"}, {"compare", "one.json"}, {"compare", "--alpha", "2", "a", "b"},
		{"compare", "--format", "csv", "a", "b"}, {"compare", "no-such-a.json", "no-such-b.json"},
		{"compare", "--within", "a.json", "direct tcp"}, {"compare", "a.json", "--"}, {"compare", "--", "a.json"},
		{"compare", "--within", "a.json", "x", "y", "--", "b.json"}} {
		if err := run(args); !cli.IsUsage(err) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// An --out directory stands for the report.json in it; one without a
// report says so rather than "is a directory".
func TestCompareReadsOutDir(t *testing.T) {
	out, empty := t.TempDir(), t.TempDir()
	report := filepath.Join(out, "report.json")
	if err := os.WriteFile(report, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := reportFile(out); err != nil || got != report {
		t.Errorf("reportFile(%s) = %q, %v; want %s", out, got, err, report)
	}
	if got, err := reportFile(report); err != nil || got != report {
		t.Errorf("reportFile(%s) = %q, %v", report, got, err)
	}
	err := run([]string{"compare", out, empty})
	if want := "compare " + empty + ": a directory with no report.json"; !cli.IsUsage(err) || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("compare %s %s: %v, want a usage error %q", out, empty, err, want)
	}
}

// A partial run (hopbench interrupted: report.json with "partial": true)
// is named partial on its side's header line and is a degraded side on
// every row: its rounds are fewer than asked, so no change is called on
// it, however large, unless --allow-degraded.
func TestComparePartialSide(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r *hop.Report) string {
		var b bytes.Buffer
		if err := present.WriteJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	clean := write("clean.json", syntheticRun())
	cut := syntheticRun()
	cut.Partial, cut.PartialReason = true, "interrupted by SIGINT after round 5 of 11"
	for i := range cut.Paths {
		if p := &cut.Paths[i]; p.Name == "epoll tcp->tcp" {
			// Half as slow again, far past the noise: a change the test
			// would call on a complete run.
			for j := range p.Rounds {
				p.Rounds[j].P50 *= 1.5
			}
		}
	}
	partial := write("partial.json", cut)
	var b bytes.Buffer
	if err := runCompare([]string{clean, partial}, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if want := "\nnew " + partial + " (partial: interrupted by SIGINT after round 5 of 11)\n"; !strings.Contains(out, want) {
		t.Errorf("no header line %q:\n%s", want, out)
	}
	if !strings.Contains(out, "\nold "+clean+"\n") {
		t.Errorf("the complete side's header says more than its name:\n%s", out)
	}
	if !strings.Contains(out, "! epoll tcp->tcp: new: partial run: interrupted by SIGINT after round 5 of 11\n") {
		t.Errorf("the partial side is not named degraded:\n%s", out)
	}
	rows := func(args ...string) map[string]compare.Row {
		var js bytes.Buffer
		if err := runCompare(append([]string{"--format", "json"}, args...), &js); err != nil {
			t.Fatal(err)
		}
		var c compare.Comparison
		if err := json.Unmarshal(js.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Partial) != 1 || c.Partial[0].Side != "new" || c.Partial[0].Run != partial {
			t.Errorf("partial runs %+v, want the new side's %s", c.Partial, partial)
		}
		out := map[string]compare.Row{}
		for _, r := range c.Rows {
			out[r.Name] = r
			if len(r.Degraded) == 0 {
				t.Errorf("%s: not degraded beside a partial run", r.Name)
			}
		}
		return out
	}
	if r := rows(clean, partial)["epoll tcp->tcp"]; r.Significant || r.DeltaPct < 40 {
		t.Errorf("held: delta %.1f%% significant %v, want a large change not called", r.DeltaPct, r.Significant)
	}
	if r := rows("--allow-degraded", clean, partial)["epoll tcp->tcp"]; !r.Significant {
		t.Errorf("--allow-degraded: delta %.1f%% p %.3f noise %.1f%%, not called", r.DeltaPct, r.PValue, r.NoisePct)
	}
}

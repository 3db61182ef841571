package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/results/hop"
)

// The README pastes a real make bench output between these markers; its
// tables' header lines must be the ones hopbench prints today.
const (
	sampleBegin = "<!-- sample:begin -->"
	sampleEnd   = "<!-- sample:end -->"
)

// columnGap is what separates two columns of a text table: tabwriter pads
// every cell with at least two spaces, and no column name holds two.
var columnGap = regexp.MustCompile(`\s{2,}`)

// TestReadmeSampleColumns checks that every table header in the README's
// pasted output (the path table, the split, the traced requests, per
// regime) has the columns, in order, that hopbench's text report prints
// for the golden run: a column renamed, added or dropped in the renderer
// fails here until the README's sample is pasted again. The optional
// columns (errors, rounds) are matched to the sample: the golden run is
// rendered with them shown or hidden as the pasted run had them.
func TestReadmeSampleColumns(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sample := readmeSample(t, string(readme))
	if !strings.HasPrefix(sample[0], "machine: ") {
		t.Errorf("README sample starts with %q, want the machine line", sample[0])
	}

	rep := goldenRuns(t)["run"]
	regimes := map[string]bool{}
	for _, p := range rep.Paths {
		regimes[p.Regime] = true
	}
	want := tableHeads(sample, regimes)
	if len(want) == 0 {
		t.Fatal("README sample holds no table header line")
	}
	i := slices.IndexFunc(want, func(cols []string) bool { return key(cols) == [2]string{"path", "cpus"} })
	if i < 0 {
		t.Fatalf("README sample has no path table (a header starting path, cpus); its headers: %v", joined(want))
	}
	matchOptional(rep, want[i])

	var out bytes.Buffer
	if err := present.Write(&out, "text", present.Full, rep); err != nil {
		t.Fatal(err)
	}
	printedHeads := tableHeads(strings.Split(out.String(), "\n"), regimes)
	got := map[[2]string][]string{}
	for _, cols := range printedHeads {
		got[key(cols)] = cols
	}
	for _, cols := range want {
		printed, ok := got[key(cols)]
		if !ok {
			t.Errorf("README sample's header %q: hopbench prints no table whose header starts %q; it prints %v",
				strings.Join(cols, " | "), strings.Join(cols[:2], " | "), joined(printedHeads))
			continue
		}
		if !slices.Equal(cols, printed) {
			t.Errorf("README sample's header\n\t%s\nhopbench prints\n\t%s", strings.Join(cols, " | "), strings.Join(printed, " | "))
		}
	}
	// The sample shows the three tables a traced run prints.
	for _, second := range []string{"added", "requests"} {
		found := slices.ContainsFunc(want, func(cols []string) bool { return cols[1] == second })
		if !found {
			t.Errorf("README sample has no table whose second column is %q (the split, the traced requests)", second)
		}
	}
}

// readmeSample is the pasted output's lines between the markers, without
// the code fence around them.
func readmeSample(t *testing.T, readme string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, sampleBegin)
	if !ok {
		t.Fatalf("README.md has no %s", sampleBegin)
	}
	block, _, ok := strings.Cut(rest, sampleEnd)
	if !ok {
		t.Fatalf("README.md has no %s after %s", sampleEnd, sampleBegin)
	}
	var lines []string
	for _, l := range strings.Split(strings.Trim(block, "\n"), "\n") {
		if !strings.HasPrefix(l, "```") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		t.Fatal("README sample is empty")
	}
	return lines
}

// tableHeads is the header lines among lines, each split into its
// columns: an indented line whose first column is "path" or a regime's
// name (the split and the traced tables name their regime there).
func tableHeads(lines []string, regimes map[string]bool) [][]string {
	var heads [][]string
	for _, l := range lines {
		if !strings.HasPrefix(l, "  ") {
			continue
		}
		cols := columnGap.Split(strings.TrimSpace(l), -1)
		if len(cols) < 3 || (cols[0] != "path" && !regimes[cols[0]]) {
			continue
		}
		heads = append(heads, cols)
	}
	return heads
}

// matchOptional shows or hides the path table's optional columns in rep
// as the sample's path table head has them: errors (shown when some path
// had one) and rounds (shown when some path was unstable).
func matchOptional(rep *hop.Report, head []string) {
	errors, rounds := slices.Contains(head, "errors"), slices.Contains(head, "rounds")
	for i := range rep.Paths {
		p := &rep.Paths[i]
		if !errors {
			p.Errors, p.Failed = 0, 0
		}
		if !rounds {
			p.Stable, p.UnstableReason = true, ""
		}
	}
	if errors {
		rep.Paths[0].Errors++
	}
	if rounds {
		rep.Paths[0].Stable, rep.Paths[0].UnstableReason = false, "round p50s disagree"
	}
}

// key names a table by its header's first two columns: the path table
// (path, cpus), the split (regime, added), the traced requests (regime,
// requests).
func key(cols []string) [2]string { return [2]string{cols[0], cols[1]} }

func joined(heads [][]string) []string {
	var out []string
	for _, cols := range heads {
		out = append(out, strings.Join(cols, " | "))
	}
	return out
}

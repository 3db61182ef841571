package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/present"
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
// pasted output (the default report's path table, per regime) has the
// columns, in order, that hopbench's default text report prints for the
// golden run: a column renamed, added or dropped in the renderer fails
// here until the README's sample is pasted again.
func TestReadmeSampleColumns(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sample := readmeSample(t, string(readme))
	if len(sample) < 2 || !strings.HasPrefix(sample[0], "workload: ") || !strings.HasPrefix(sample[1], "machine: ") {
		t.Errorf("README sample starts with %q, want the workload line, then the machine line", sample[:min(2, len(sample))])
	}

	rep := goldenRuns(t)["run"]
	want := tableHeads(sample, nil)
	i := slices.IndexFunc(want, func(cols []string) bool { return key(cols) == [2]string{"path", "p50 µs"} })
	if i < 0 {
		t.Fatalf("README sample has no path table (a header starting path, p50 µs); its headers: %v", joined(want))
	}

	var out bytes.Buffer
	if err := present.Write(&out, "text", present.Brief, rep); err != nil {
		t.Fatal(err)
	}
	printedHeads := tableHeads(strings.Split(out.String(), "\n"), nil)
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

// key names a table by its header's first two columns: the default
// report's path table is (path, p50 µs).
func key(cols []string) [2]string { return [2]string{cols[0], cols[1]} }

func joined(heads [][]string) []string {
	var out []string
	for _, cols := range heads {
		out = append(out, strings.Join(cols, " | "))
	}
	return out
}

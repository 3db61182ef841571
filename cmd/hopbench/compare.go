package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/cmd/internal/usage"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/present/page"
	"github.com/hoplat/hoplat/tracer/attach"
)

// compareHelp lays out hopbench compare --help; its flags are runCompare's.
var compareHelp = usage.Help{
	Usage: []string{
		"hopbench compare [options] OLD NEW [MORE...]",
		"hopbench compare [options] OLD1 OLD2 -- NEW1 NEW2",
		"hopbench compare [options] --within RUN A B",
	},
	About: "Each run after the first against the first, per path and regime: the p50 round trip and " +
		"(relay paths) the added p50 of each, the change, and ~ unless a Mann-Whitney U test on the kept " +
		"rounds finds it significant at --alpha and the change is larger than the noise between runs of one " +
		"configuration (noise_pct). A run is a report.json (hopbench --format json or --out), or the --out " +
		"directory that holds one. Two hopbench attach reports (--format json, or a directory holding " +
		"attach.json) compare per direction: residence p50 and each part of the split, over their windows.",
	Groups: []usage.Group{
		usage.Section("Comparison", "alpha P", "allow-different", "allow-degraded", "within RUN"),
		usage.Section("Output", "format text|json", "json", "html FILE"),
	},
	Examples: []string{
		"hopbench compare before/ after/",
		"hopbench compare --format json before/report.json after/report.json",
		"hopbench compare --html cmp.html base/ try1/ try2/",
		"hopbench compare --within run/ 'epoll tcp->tcp' 'haproxy tcp->tcp'",
		"hopbench compare haproxy-2.6.attach.json haproxy-2.8.attach.json",
	},
}

// reportFile is the report a compare argument names: the file itself, or
// the report.json in a directory, as hopbench --out writes it.
func reportFile(arg string) (string, error) {
	st, err := os.Stat(arg)
	if err != nil || !st.IsDir() {
		return arg, nil // compare.Load says what is wrong with a file
	}
	for _, name := range []string{"report.json", compare.AttachFile} {
		p := filepath.Join(arg, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", cli.Usage(fmt.Errorf("compare %s: a directory with no report.json (hopbench --out DIR writes one) nor %s", arg, compare.AttachFile))
}

// compareAttach is hopbench compare on two hopbench attach reports.
func compareAttach(files []string, alpha float64, format string, stdout io.Writer) error {
	var runs [2]compare.AttachRun
	for i, f := range files {
		r, err := compare.LoadAttach(f)
		if err != nil {
			return notJSON(f, err)
		}
		runs[i] = r
	}
	c := compare.CompareAttach(runs[0], runs[1], alpha)
	if format == "json" {
		return present.WriteAttachComparisonJSON(stdout, c)
	}
	return present.WriteAttachComparison(stdout, c)
}

// runCompare is `hopbench compare OLD.json NEW.json [MORE.json...]`: each
// later run against the first, per path and regime, in text, JSON or an
// HTML page; `OLD1 OLD2 -- NEW1 NEW2` pools repeated runs a side, and
// `--within RUN.json A B` sets two paths of one run side by side.
func runCompare(args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("hopbench compare", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		alpha    = fs.Float64("alpha", compare.DefaultAlpha, "significance level of the Mann-Whitney U test: a change with p above it prints as ~")
		allow    = fs.Bool("allow-different", false, "compare runs whose machine, placement or workload differ (the differences print first)")
		allowDeg = fs.Bool("allow-degraded", false, "call a change where a side had failed rounds, errors, an unstable path or a partial run")
		within   = fs.String("within", "", "compare two paths, A and B, of this one run")
		htmlOut  = fs.String("html", "", "also write the comparison as one self-contained HTML page to this file")
		format   = fs.String("format", "text", "output")
		asJSON   = fs.Bool("json", false, "same as --format json")
	)
	if err := usage.Parse(fs, &compareHelp, version, args, stdout); err != nil {
		return err
	}
	if *asJSON {
		*format = "json"
	}
	if *format != "text" && *format != "json" {
		return cli.Usage(fmt.Errorf("--format %q: want text or json", *format))
	}
	if *alpha <= 0 || *alpha >= 1 {
		return cli.Usage(fmt.Errorf("--alpha \"%v\": want between 0 and 1", *alpha))
	}
	dash := fs.ArgsLenAtDash()
	switch {
	case *within != "" && (fs.NArg() != 2 || dash >= 0):
		return cli.Usage(fmt.Errorf("--within %s needs two path names, have %d", *within, fs.NArg()))
	case dash >= 0 && (dash == 0 || dash == fs.NArg()):
		return cli.Usage(fmt.Errorf("compare OLD... -- NEW... needs a report or more on each side of --"))
	case *within == "" && fs.NArg() < 2:
		return cli.Usage(fmt.Errorf("compare needs two reports or more (hopbench --format json or --out's report.json), have %d", fs.NArg()))
	}
	if *htmlOut != "" {
		if err := cli.CheckOutputFile("html", *htmlOut); err != nil {
			return err
		}
	}
	named := fs.Args()
	if *within != "" {
		named = []string{*within}
	}
	files, err := reportFiles(named)
	if err != nil {
		return err
	}
	if schema, err := compare.SchemaOf(files[0]); err == nil && schema == attach.Schema {
		if *within != "" || dash >= 0 || len(files) != 2 {
			return cli.Usage(fmt.Errorf("compare: attach reports compare as OLD NEW, two of them"))
		}
		return compareAttach(files, *alpha, *format, stdout)
	}
	runs, err := loadRuns(files)
	if err != nil {
		return err
	}
	opt := compare.Options{Alpha: *alpha, AllowDifferent: *allow, AllowDegraded: *allowDeg}
	var c *compare.Comparison
	switch {
	case *within != "":
		c, err = compare.Within(runs[0], fs.Arg(0), fs.Arg(1), opt)
		if err != nil {
			return cli.Usage(err)
		}
	case dash >= 0:
		c, err = compare.CompareRepeated(runs[:dash], runs[dash:], opt)
	default:
		c, err = compare.Compare(runs, opt)
	}
	if errors.Is(err, compare.ErrDifferent) {
		// The reader sees what differs before the refusal.
		present.WriteDifferences(os.Stderr, c)
		return err
	}
	if err != nil {
		return err
	}
	if *format == "json" {
		err = present.WriteComparisonJSON(stdout, c)
	} else {
		err = present.WriteComparison(stdout, c)
	}
	if err != nil {
		return err
	}
	if *htmlOut != "" {
		return writeCompareHTML(*htmlOut, c)
	}
	return nil
}

// loadRuns reads the reports named. Every report is found before any is
// read: an argument names a file, or an --out directory holding
// report.json.
func loadRuns(files []string) ([]compare.Run, error) {
	var runs []compare.Run
	for _, f := range files {
		r, err := compare.Load(f)
		if err != nil {
			return nil, notJSON(f, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// notJSON is the usage error for a report compare could not load: when
// the file is no JSON at all (the text report, most likely), what compare
// reads and how to get it.
func notJSON(file string, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return cli.Usage(fmt.Errorf("compare %s: not JSON (a text report?): compare reads the JSON of "+
			"hopbench --format json, or the report.json that hopbench --out DIR writes", file))
	}
	return cli.Usage(err)
}

// reportFiles is each argument's report file: the argument, or the
// report a folder holds (reportFile).
func reportFiles(named []string) ([]string, error) {
	files := make([]string, len(named))
	for i, arg := range named {
		var err error
		if files[i], err = reportFile(arg); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// writeCompareHTML writes the comparison's page to path.
func writeCompareHTML(path string, c *compare.Comparison) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := page.WriteCompare(f, c); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hopbench: wrote %s\n", path)
	return nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/present/page"
	"github.com/hoplat/hoplat/results/compare"
)

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
		allowDeg = fs.Bool("allow-degraded", false, "call a change where a side had failed rounds, errors or an unstable path")
		within   = fs.String("within", "", "compare two paths, A and B, of this one run")
		htmlOut  = fs.String("html", "", "also write the comparison as one self-contained HTML page to this file")
		format   = fs.String("format", "text", "output: text or json")
		asJSON   = fs.Bool("json", false, "same as --format json")
		help     = fs.BoolP("help", "h", false, "this help")
	)
	if err := fs.Parse(args); err != nil {
		return cli.Usage(err)
	}
	if *help {
		fmt.Fprintf(stdout, "usage: hopbench compare [flags] OLD.json NEW.json [MORE.json...]\n"+
			"       hopbench compare [flags] OLD1.json OLD2.json -- NEW1.json NEW2.json\n"+
			"       hopbench compare [flags] --within RUN.json A B\n\n"+
			"Each run after the first against the first, per path and regime: the p50 round trip and\n"+
			"(relay paths) the added p50 of each, the change, and ~ unless a Mann-Whitney U test on the\n"+
			"kept rounds finds it significant at --alpha.\n\n%s", fs.FlagUsages())
		return pflag.ErrHelp
	}
	if *asJSON {
		*format = "json"
	}
	if *format != "text" && *format != "json" {
		return cli.Usage(fmt.Errorf("--format %q: want text or json", *format))
	}
	if *alpha <= 0 || *alpha >= 1 {
		return cli.Usage(fmt.Errorf("--alpha %v: want between 0 and 1", *alpha))
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
	files := fs.Args()
	if *within != "" {
		files = []string{*within}
	}
	var runs []compare.Run
	for _, f := range files {
		r, err := compare.Load(f)
		if err != nil {
			return cli.Usage(err)
		}
		runs = append(runs, r)
	}
	opt := compare.Options{Alpha: *alpha, AllowDifferent: *allow, AllowDegraded: *allowDeg}
	var c *compare.Comparison
	var err error
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
		f, err := os.Create(*htmlOut)
		if err != nil {
			return err
		}
		if err := page.WriteCompare(f, c); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", *htmlOut, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "hopbench: wrote %s\n", *htmlOut)
	}
	return nil
}

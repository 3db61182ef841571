// Command hopbench builds a topology of a responder, relays, socat and
// HAProxy on this machine, runs the load client over every path in
// interleaved rounds, and prints what each hop adds:
//
//	hopbench                                  # make bench: every path, about a minute
//	hopbench --hops 0,1,2,3 --paths direct,epoll --transports tcp
//	hopbench --threads '1;2;4;8;16;32' --relay-lock global
//	hopbench --service-time 0,20us,100us,1ms --out results/
//	hopbench --backend 'mysql://bench:pw@127.0.0.1:3306/sbtest?socket=/run/mysqld/mysqld.sock'
//	hopbench --topology hosts/testdata/mxs-1515.conf --runs 3   # the database in a namespace (or on an ssh host) of its own
//	hopbench --out before/ ; (change something) ; hopbench --out after/
//	hopbench compare before/report.json after/report.json      # what moved, and whether it is more than noise
//	hopbench galera --table-size 1000 --time 5s   # a Galera cluster in namespaces behind HAProxy and hoprelay
//
// --out DIR writes report.html there, one self-contained page (open it in
// a browser, or attach it to a mail), beside the JSON, CSV, text, .hgrm
// files and plots; the text report fits one screen and 100 columns
// (--verbose: every table and verdict; --wide: every column).
//
// With --topology the components run on the file's hosts (package hosts):
// this machine, network namespaces hopbench creates and joins with veth
// pairs, or ssh hosts for the server side; the namespaces, veths, remote
// processes and shipped binaries are removed at the end, Ctrl-C included.
//
// Every component is its own process in its own process group; SIGINT
// (Ctrl-C) or SIGTERM stops the round in progress, stops them all by PID,
// removes their sockets, prints the report of the rounds completed so far
// (marked partial: "partial": true and "partial_reason" in the JSON, its
// first line in the text; CSV has no place for it, only its unmeasured
// paths' empty cells show), and exits 130 or 143; before any round was
// kept there is no report, only the message. A second signal stops at
// once, with no report. It exits 2 for flag values that make no sense (an --out
// directory that cannot be written included, found before any load), and 1
// when the run failed or a path had no successful round, after printing
// the first failed round's cause.
package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/analysis/history"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/spell"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/probe"
	"github.com/hoplat/hoplat/probe/machine"
)

func main() {
	err := run(os.Args[1:])
	if err == pflag.ErrHelp {
		err = nil
	}
	cli.Exit("hopbench", err)
}

// subcommands are hopbench's, in the order its usage lists them.
var subcommands = []string{"attach", "compare", "galera", "help"}

func run(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "compare":
			return runCompare(args[1:], os.Stdout)
		case "attach":
			return runAttach(args[1:], os.Stdout)
		case "galera":
			return runGalera(args[1:])
		case "help":
			return runHelp(args[1:])
		}
	}
	opts, err := parseFlags(args)
	if err != nil {
		return err
	}
	if err := probeFromEnv(&opts.cfg); err != nil {
		return err
	}
	if opts.out != "" {
		if err := cli.CheckOutputDir("out", opts.out); err != nil {
			return err
		}
	}
	if err := reachable(context.Background(), opts.cfg); err != nil {
		return err
	}
	// Components run in process groups of their own, so the terminal's
	// Ctrl-C reaches only hopbench; cancelling ctx stops them by PID and
	// removes the temp dir before Run returns, with the report of the
	// rounds completed. A second signal does not wait for that: the
	// components forked with a Pdeathsig get SIGTERM as hopbench exits.
	ctx, stop := cli.SignalContextHurried(context.Background(), func(in cli.Interrupted) {
		cli.Exit("hopbench", fmt.Errorf("%w again: stopped at once, no report", in))
	})
	defer stop()
	rep, err := driver.Run(ctx, opts.cfg)
	if ctx.Err() != nil && (err != nil || rep == nil) {
		return fmt.Errorf("%w before any round was kept: no report; every component stopped", context.Cause(ctx))
	}
	if err != nil {
		return err
	}
	rep.Verdicts = present.Verdicts(rep)
	present.Words(rep)
	// What made the run, for the report's reader to repeat it.
	rep.CommandLine = append([]string{"hopbench"}, args...)
	rep.Version = buildVersion()
	if opts.history != "" && !rep.Partial && rep.Sweep == nil {
		judgeAcrossRuns(rep, opts.history, opts.command+" (version "+rep.Version+")")
	}
	style := present.Brief
	switch {
	case opts.wide:
		style = present.Wide
	case opts.verbose:
		style = present.Full
	}
	if err := present.Write(os.Stdout, opts.format, style, rep); err != nil {
		return err
	}
	if opts.out != "" {
		if err := writeOut(opts.out, opts.format, rep); err != nil {
			return err
		}
	}
	// Printed whatever -q says: a failed round's figures are missing from
	// the report, and its cause is nowhere else.
	if f := driver.FirstFailure(rep); f != nil {
		fmt.Fprintf(os.Stderr, "hopbench: %v\n", f)
	}
	if rep.Partial {
		// The status is the signal's, as a shell reports it: the run
		// did not finish, whatever it measured.
		return interrupted{reason: rep.PartialReason, cause: context.Cause(ctx)}
	}
	return driver.Unmeasured(rep)
}

// runHelp is `hopbench help [SUBCOMMAND] [all]`: the help --help prints,
// of hopbench or of the subcommand named.
func runHelp(args []string) error {
	if len(args) > 0 && args[0] != "all" {
		sub, rest := args[0], args[1:]
		if sub == "help" || !slices.Contains(subcommands, sub) {
			return cli.Usage(fmt.Errorf("help %q: %s", sub, unknownSubcommand(sub)))
		}
		return run(append([]string{sub, "--help"}, rest...))
	}
	return run(append([]string{"--help"}, args...))
}

// unknownSubcommand says what hopbench takes instead of word: the nearest
// subcommand, or the list of them.
func unknownSubcommand(word string) string {
	if s := spell.Nearest(word, subcommands); s != "" {
		return "did you mean hopbench " + s + "?"
	}
	return "hopbench's subcommands are attach, compare, galera and help; everything else is an option"
}

// interrupted is the end of a run a signal cut short after some rounds:
// the report of those is printed, and the exit status is the signal's.
type interrupted struct {
	reason string
	cause  error // cli.Interrupted, for the status
}

func (e interrupted) Error() string {
	return e.reason + "; the report holds the rounds completed; every component stopped"
}

func (e interrupted) Unwrap() error { return e.cause }

// ProbeRoundsEnv names the variable that sets the machine probe's rounds per
// figure (probe.Options.Rounds, 15 unset): fewer make the probe quicker,
// about 0.12 s a round, and its constants noisier. The suite's tests, which
// run hopbench dozens of times, set it low.
const ProbeRoundsEnv = "HOPLAT_PROBE_ROUNDS"

func probeFromEnv(cfg *driver.Config) error {
	v := os.Getenv(ProbeRoundsEnv)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return cli.Usage(fmt.Errorf("%s=%q: want a whole number of rounds, at least 1", ProbeRoundsEnv, v))
	}
	cfg.Probe = func(ctx context.Context) (machine.Machine, error) {
		return probe.Run(ctx, probe.Options{Rounds: n})
	}
	return nil
}

// judgeAcrossRuns judges rep's paths against the same command's earlier
// runs on this machine in file, then adds rep to it. The history is a
// help, not the run: a file that cannot be read or written is said on
// stderr and the report stands without it.
func judgeAcrossRuns(rep *hop.Report, file, command string) {
	entries, bad, err := history.Load(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hopbench: --history %s: %v; the run is not judged against earlier ones\n", file, err)
		return
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "hopbench: --history %s: %d lines skipped that are not runs\n", file, bad)
	}
	past, n := history.Past(entries, command, history.MachineOf(rep))
	judged, flagged, moved := hop.JudgeAcrossRuns(rep.Paths, past)
	rep.History = &hop.History{File: file, PastRuns: n, Judged: judged, Flagged: flagged, HostMoved: moved}
	rep.HostNoise = hop.HostNoiseOf(rep.Paths) // its counts of flagged paths, across runs' flags among them
	if err := history.Append(file, history.EntryOf(rep, command, time.Now())); err != nil {
		fmt.Fprintf(os.Stderr, "hopbench: --history %s: %v; this run is not kept\n", file, err)
	}
}

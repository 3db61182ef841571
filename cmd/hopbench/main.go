// Command hopbench builds a topology of a responder, relays, socat and
// HAProxy on this machine, runs the load client over every path in
// interleaved rounds, and prints what each hop adds:
//
//	hopbench                                  # make bench: every path, about a minute
//	hopbench --hops 0,1,2,3 --paths direct,epoll --transports tcp
//	hopbench --threads '1;2;4;8;16;32' --relay-lock global
//	hopbench --service-time 0,20us,100us,1ms --out results/
//	hopbench --backend 'mysql://bench:pw@127.0.0.1:3306/sbtest?socket=/run/mysqld/mysqld.sock'
//
// Every component is its own process in its own process group; Ctrl-C
// stops them all by PID, removes their sockets, and exits 130.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/results/hop"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// Exit statuses: 2 for a flag that makes no sense, 130 when interrupted
// (as a shell reports SIGINT), 1 for any other failure.
func run(args []string) int {
	opts, err := parseFlags(args)
	if errors.Is(err, errHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hopbench:", err)
		return 2
	}
	// Components run in process groups of their own, so the terminal's
	// Ctrl-C reaches only hopbench; cancelling ctx stops them by PID and
	// removes the temp dir before Run returns.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := driver.Run(ctx, opts.cfg)
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "hopbench: interrupted; every component stopped")
		return 130
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hopbench:", err)
		return 1
	}
	if err := write(os.Stdout, opts.format, rep); err != nil {
		fmt.Fprintln(os.Stderr, "hopbench:", err)
		return 1
	}
	if opts.out != "" {
		if err := hop.WriteDir(opts.out, rep); err != nil {
			fmt.Fprintln(os.Stderr, "hopbench:", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "hopbench: wrote %s\n", opts.out)
	}
	return 0
}

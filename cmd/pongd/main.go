// Command pongd is hoplat's responder: it serves the echo protocol, or
// MySQL's as a mock mysqld with canned results, on any number of listening
// addresses at once.
//
//	pongd --listen tcp:127.0.0.1:0 --listen unix:/tmp/p.sock --io blocking
//
// After every listener is bound it prints one "listening ADDR" line per
// listener on stdout (ADDR dialable, with the port the kernel chose), so a
// driver can pass port 0. SIGINT or SIGTERM closes the listeners (UNIX paths
// removed) and exits 0.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/sockets"
)

func main() { cli.Exit("pongd", run(os.Args[1:])) }

// ioUsage is --io's help: what each model costs, measured.
const ioUsage = "I/O model: auto, netpoll, blocking or spin. auto (the default) serves each connection blocking, " +
	"on an OS thread of its own, while at most 16 per CPU (512 in all) are, and netpoll beyond. Against pingpong's " +
	"default, unpinned on a loaded 2-vCPU EPYC guest, the pair's echo p50 was 21.3 us (sockperf 23.5); both in netpoll " +
	"32.8, both in spin 17.2 at the price of a core per connection (README.md, Defaults)"

func run(args []string) error {
	fs := pflag.NewFlagSet("pongd", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned and printed once, by main
	listen := fs.StringArray("listen", nil, "address to serve (repeatable): tcp:HOST:PORT, unix:/path, or socat's TCP4-LISTEN:PORT,…")
	proto := fs.String("proto", "echo", "protocol: echo or mysql (a mock mysqld; account sbtest/sbtest unless --user/--password)")
	ioModel := fs.String("io", "auto", ioUsage)
	cpus := fs.String("cpus", "", "pin connection threads round-robin over this CPU list (0-3,8)")
	serviceTime := fs.Duration("service-time", 0, "time spent before each reply (mysql: each statement), modelling a backend's own cost")
	serviceMode := fs.String("service-mode", "busy", "how service time is spent: busy (burn CPU, as a query does) or sleep")
	my := addMySQLFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(os.Stdout, "Usage: pongd --listen ADDR [--listen ADDR ...] [flags]\n%s", fs.FlagUsages())
			return nil
		}
		return cli.Usage(err)
	}
	if fs.NArg() > 0 {
		return cli.Usage(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if len(*listen) == 0 {
		return cli.Usage(errors.New("--listen: at least one address is required"))
	}
	srv := &pingpong.Server{
		ErrorLog: func(err error) { fmt.Fprintln(os.Stderr, "pongd:", err) },
		Pinned:   func(conn, cpu int) { fmt.Fprintf(os.Stderr, "pongd: connection %d on cpu %d\n", conn, cpu) },
	}
	for _, s := range *listen {
		a, err := sockets.Parse(s)
		if err != nil {
			return cli.Usage(fmt.Errorf("--listen %q: %w", s, err))
		}
		srv.Listen = append(srv.Listen, a)
	}
	var err error
	if srv.IO, err = pingpong.ParseIO(*ioModel); err != nil {
		return cli.Usage(fmt.Errorf("--io: %w", err))
	}
	if srv.IO == pingpong.Auto {
		fmt.Fprintf(os.Stderr, "pongd: --io auto: each connection blocking on an OS thread of its own while at most %d are (%d per CPU), netpoll beyond\n", srv.AutoLimit(), pingpong.AutoPerCPU)
	}
	if *cpus != "" {
		if srv.CPUs, err = affinity.ParseCPUs(*cpus); err != nil {
			return cli.Usage(fmt.Errorf("--cpus %w", err))
		}
	}
	if *serviceTime < 0 {
		return cli.Usage(fmt.Errorf("--service-time %v: want 0 or more", *serviceTime))
	}
	mode, err := pingpong.ParseServiceMode(*serviceMode)
	if err != nil {
		return cli.Usage(fmt.Errorf("--service-mode: %w", err))
	}
	if srv.Handler, err = handler(fs, *proto, my, pingpong.Service{Time: *serviceTime, Mode: mode}); err != nil {
		return cli.Usage(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := srv.Bind(ctx); err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	for _, a := range srv.Addrs() {
		fmt.Fprintln(out, "listening", a)
	}
	if err := out.Flush(); err != nil {
		srv.Close()
		return err
	}
	srv.Serve()
	<-ctx.Done()
	return srv.Close()
}

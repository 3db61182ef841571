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
	"github.com/hoplat/hoplat/cmd/internal/usage"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/responder"
	"github.com/hoplat/hoplat/sockets"
)

func main() {
	err := run(os.Args[1:])
	if errors.Is(err, pflag.ErrHelp) {
		err = nil
	}
	cli.Exit("pongd", err)
}

// version is set at link time (go build -ldflags "-X main.version=...").
var version string

// help lays out pongd --help; its flags are run's.
var help = usage.Help{
	Usage: []string{"pongd --listen ADDR [--listen ADDR ...] [options]"},
	About: "Serves the echo protocol, or MySQL's as a mock mysqld, on every --listen address at once, " +
		"and prints a line \"listening ADDR\" for each once it is bound.",
	First: []string{"listen ADDR", "proto echo|mysql", "service-time DUR", "service-mode busy|sleep", "io MODEL",
		"cpus LIST"},
	Groups: []usage.Group{
		usage.Section("MySQL (--proto mysql)", "user NAME", "password PW", "auth PLUGIN", "tables N", "table-size N", "seed N",
			"rows N", "row-bytes N", "connect-timeout DUR", "max-allowed-packet BYTES"),
	},
	Examples: []string{
		"pongd --listen tcp:127.0.0.1:7000 --listen unix:/tmp/p.sock",
		"pongd --listen TCP4-LISTEN:3306,reuseaddr --proto mysql --service-time 20us",
		"pongd --listen tcp:127.0.0.1:7000 --io spin --cpus 1",
	},
}

func run(args []string) error {
	fs := pflag.NewFlagSet("pongd", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned and printed once, by main
	listen := fs.StringArray("listen", nil, "address to serve, repeatable: tcp:HOST:PORT, unix:/path or socat's TCP4-LISTEN:PORT,...")
	proto := fs.String("proto", "echo", "protocol; mysql is a mock mysqld (account sbtest/sbtest unless --user, --password)")
	ioModel := fs.String("io", "auto", "auto, netpoll, blocking or spin; auto: blocking, an OS thread per connection, "+
		"up to 16 per CPU, netpoll beyond")
	cpus := fs.String("cpus", "", "pin connection threads round-robin over these CPUs (0-3,8)")
	serviceTime := fs.Duration("service-time", 0, "time spent before each reply (mysql: each statement), as a backend's own cost")
	serviceMode := fs.String("service-mode", "busy", "busy burns CPU, as a query does; sleep sleeps")
	my := addMySQLFlags(fs)
	if err := usage.Parse(fs, &help, version, args, os.Stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usage(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if len(*listen) == 0 {
		return cli.Usage(errors.New("--listen: at least one address is required"))
	}
	srv := &responder.Server{
		ErrorLog: func(err error) { fmt.Fprintln(os.Stderr, "pongd:", err) },
		Pinned:   func(conn, cpu int) { fmt.Fprintf(os.Stderr, "pongd: connection %d on cpu %d\n", conn, cpu) },
	}
	for _, s := range *listen {
		a, err := sockets.Parse(s)
		if err != nil {
			return cli.BadAddress("--listen", s, err)
		}
		srv.Listen = append(srv.Listen, a)
	}
	var err error
	if srv.IO, err = iomodel.Parse(*ioModel); err != nil {
		return cli.BadValue("--io", *ioModel, err)
	}
	if *cpus != "" {
		if srv.CPUs, err = affinity.ParseCPUs(*cpus); err != nil {
			return cli.BadList("--cpus", *cpus, err)
		}
	}
	if *serviceTime < 0 {
		return cli.Usage(fmt.Errorf("--service-time %q: want 0 or more", serviceTime.String()))
	}
	mode, err := responder.ParseServiceMode(*serviceMode)
	if err != nil {
		return cli.BadValue("--service-mode", *serviceMode, err)
	}
	if srv.Handler, err = handler(fs, *proto, my, responder.Service{Time: *serviceTime, Mode: mode}); err != nil {
		return cli.Usage(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := srv.Bind(ctx); err != nil {
		return err
	}
	// Said once every flag is known good and the addresses bound: a
	// notice before an error would be read as its cause.
	if srv.IO == iomodel.Auto {
		fmt.Fprintf(os.Stderr, "pongd: --io auto: each connection blocking on an OS thread of its own while at most %d are (%d per CPU), netpoll beyond\n", srv.AutoLimit(), iomodel.AutoPerCPU)
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

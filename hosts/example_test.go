package hosts_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hoplat/hoplat/hosts"
)

// MXS-1515's set-up (docs/hopbench.md): the client and the proxy on one
// host, the database on another, here two namespaces of this machine.
func ExampleParseTopology() {
	tp, err := hosts.ParseTopology("mxs.conf", []byte(`
HOST_APP="netns:app"
HOST_DB="netns:db"
SERVER_HOST="db"
SERVER_CPUS="1"
`), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range hosts.Components {
		p := tp.Place[c]
		fmt.Printf("%-7s on %s cpus %q\n", c, tp.HostOf(c), p.CPUs)
	}

	_, err = hosts.ParseTopology("mxs.conf", []byte("HOST_DB=netns:db\nSERVER_HOST=bd\n"), nil)
	fmt.Println(err)
	// Output:
	// client  on app (netns:app) cpus ""
	// relay   on app (netns:app) cpus ""
	// server  on db (netns:db) cpus "1"
	// backend on db (netns:db) cpus ""
	// topology mxs.conf:2: SERVER_HOST: "bd": no such host (declare it with HOST_BD=SPEC, or give a spec here)
}

// How hopbench places components: bring the file's hosts up, start the
// server where the file puts it, and point the client at that host's
// address. (Not run: it needs root for the namespaces.)
func ExampleTestbed() {
	// The file sets hopbench's settings too, which hopbench reads
	// (driver/settings); here they are taken unread.
	tp, err := hosts.ReadTopology("testdata/mxs-1515.conf", &hosts.Settings{Families: []string{""}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tb, err := tp.Up(ctx, hosts.Options{})
	if err != nil {
		fmt.Println(err) // hosts: netns app: add namespace hoplat-…-app: operation not permitted (need root)
		return
	}
	defer tb.Close() // also on Ctrl-C: ctx is cancelled, the run returns, Close removes everything

	server := tp.Place[hosts.Server].Host
	addr, _ := tb.Address(server) // 10.77.0.2
	bin, err := tb.Binary(ctx, server, "pongd")
	if err != nil {
		fmt.Println(err)
		return
	}
	pongd, err := tb.Start(ctx, server, hosts.Command{Argv: []string{bin, "--listen", "tcp:" + addr + ":0"}, Stdout: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pongd.Stop()
	client := tp.Place[hosts.Client].Host
	argv, _ := tb.Argv(client, []string{"pingpong", "--target", "tcp:" + addr + ":PORT"})
	fmt.Println(argv) // [ip netns exec hoplat-<pid>-app pingpong --target …]
}

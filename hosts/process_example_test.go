package hosts_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hoplat/hoplat/hosts"
)

// A component says where it listens on stdout, as pongd and hoprelay do;
// Listening waits for those lines, and Stop ends its process group.
func ExampleStart() {
	p, err := hosts.Start(hosts.Command{Name: "stand-in",
		Argv: []string{"sh", "-c", "echo listening tcp:127.0.0.1:4321; exec sleep 60"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	addrs, err := p.Listening(context.Background(), 1, 10*time.Second)
	fmt.Println(addrs, err)
	fmt.Println(p.Stop())
	// Output:
	// [tcp:127.0.0.1:4321] <nil>
	// <nil>
}

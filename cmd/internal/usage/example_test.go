package usage_test

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/cmd/internal/usage"
)

func ExampleHelp() {
	fs := pflag.NewFlagSet("pongd", pflag.ContinueOnError)
	fs.StringArray("listen", nil, "address to serve, repeatable")
	fs.String("proto", "echo", "protocol")
	fs.Duration("service-time", 0, "time spent before each reply, as a backend's own cost")
	h := usage.Help{
		Usage:    []string{"pongd --listen ADDR [options]"},
		First:    []string{"listen ADDR", "proto echo|mysql"},
		Groups:   []usage.Group{usage.Section("Service time", "service-time")},
		Examples: []string{"pongd --listen tcp:127.0.0.1:7000"},
	}
	h.Write(os.Stdout, fs) // --help; WriteAll, --help all, adds the groups
	// Output:
	// usage: pongd --listen ADDR [options]
	//
	// Options:
	//       --listen ADDR           address to serve, repeatable
	//       --proto echo|mysql      protocol (default echo)
	//
	// Examples:
	//   pongd --listen tcp:127.0.0.1:7000
	//
	// More options (pongd --help all): Service time.
}

package present

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/hoplat/hoplat/analysis/hop"
)

// writeHosts is the text report's line naming the hosts of a topology run:
// nothing for a run on loopback.
func writeHosts(w io.Writer, r *hop.Report) {
	if len(r.Hosts) == 0 {
		return
	}
	parts := make([]string, len(r.Hosts))
	for i, h := range r.Hosts {
		parts[i] = fmt.Sprintf("%s (%s %s)", h.Name, h.Kind, h.Address)
	}
	line := "hosts: " + strings.Join(parts, ", ")
	var on hop.PathHosts
	for _, p := range r.Paths {
		if p.Hosts != nil {
			on.Client, on.Server = p.Hosts.Client, p.Hosts.Server
			on.Relay = cmp.Or(on.Relay, p.Hosts.Relay)
		}
	}
	if on.Client != "" {
		line += fmt.Sprintf("; client on %s, relay on %s, server on %s", on.Client, orDash(on.Relay), on.Server)
	}
	fmt.Fprintln(w, line)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

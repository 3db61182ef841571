package hop

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/hoplat/hoplat/affinity"
)

// Host is one host of a topology run, as the report's top-level "hosts"
// array names it: hosts.Info's fields and the host's own environment, read
// there (its kernel, CPUs and clock source are that machine's, not the
// client's).
type Host struct {
	Name    string        `json:"name"`
	Kind    string        `json:"kind"` // local, netns or ssh
	Address string        `json:"address"`
	Env     *affinity.Env `json:"env,omitempty"` // nil when it could not be read
}

// PathHosts says on which host each component of a path ran. Relay is
// empty for a direct path.
type PathHosts struct {
	Client string `json:"client"`
	Relay  string `json:"relay,omitempty"`
	Server string `json:"server"`
}

// writeHosts is the text report's line naming the hosts of a topology run:
// nothing for a run on loopback.
func writeHosts(w io.Writer, r *Report) {
	if len(r.Hosts) == 0 {
		return
	}
	parts := make([]string, len(r.Hosts))
	for i, h := range r.Hosts {
		parts[i] = fmt.Sprintf("%s (%s %s)", h.Name, h.Kind, h.Address)
	}
	line := "hosts: " + strings.Join(parts, ", ")
	var on PathHosts
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

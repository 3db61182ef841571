package hop

import (
	"fmt"
	"io"
	"strings"

	"github.com/hoplat/hoplat/results"
)

// Host is one host of a topology run, as the report's top-level "hosts"
// array names it: hosts.Info's fields and the host's own environment, read
// there (its kernel, CPUs and clock source are that machine's, not the
// client's).
type Host struct {
	Name    string       `json:"name"`
	Kind    string       `json:"kind"` // local, netns or ssh
	Address string       `json:"address"`
	Env     *results.Env `json:"env,omitempty"` // nil when it could not be read
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
	for _, p := range r.Paths {
		if p.Hosts != nil {
			line += fmt.Sprintf("; client on %s, relay on %s, server on %s", p.Hosts.Client, orDash(p.Hosts.Relay), p.Hosts.Server)
			break
		}
	}
	fmt.Fprintln(w, line)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

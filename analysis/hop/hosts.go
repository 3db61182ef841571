package hop

import (
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

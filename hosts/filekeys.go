package hosts

import (
	"slices"
	"strings"
)

// Settings are the keys of a topology file that the program running it
// reads itself, beside the hosts, places and ssh keys read here: for
// hopbench, one key per flag (driver/settings). ParseTopology holds every
// key of the file to these and its own before it reads anything, so that
// a typo is reported at its line with the nearest key, and calls Read
// after the file's lines and before its hosts.
type Settings struct {
	// Keys are the keys Read reads, each a key or a family's pattern
	// (PROXY_<NAME>) that suggestions may name.
	Keys []string
	// Families are the prefixes of key families: PROXY_ for PROXY_NGINX.
	// The empty prefix takes every key.
	Families []string
	// Aliases maps other names of its keys to theirs, as older files
	// wrote them: autobench.conf's MAX_TIME for TIME.
	Aliases map[string]string
	// Read reads the keys from the file parsed so far (Value, Keys, Has)
	// and reports a bad value with Errorf.
	Read func(t *TopologyFile) error
}

// fileKeys are the keys read here with no host or component in them.
var fileKeys = []string{"TEST_NAME", "SSH_OPTIONS", "REMOTE_BIN", "BACKEND_START"}

// aliases are autobench.conf's names for keys read here.
var aliases = map[string]string{
	"BENCHMARK_CPUS": "CLIENT_CPUS",
}

// alias is the key name stands for, and whether it is another's name.
func (s *Settings) alias(name string) (string, bool) {
	if a, ok := aliases[name]; ok {
		return a, true
	}
	if s != nil {
		if a, ok := s.Aliases[name]; ok {
			return a, true
		}
	}
	return name, false
}

// known reports whether k is one of s's keys or of its families.
func (s *Settings) known(k string) bool {
	if s == nil {
		return false
	}
	if slices.Contains(s.Keys, k) {
		return true
	}
	for _, f := range s.Families {
		if name, ok := strings.CutPrefix(k, f); ok {
			return name != "" // the program checks the name
		}
	}
	return false
}

// Value is the value the file gives key (under its own name: THREADS for
// THREAD_COUNTS_TO_RUN), and whether it gives one.
func (t *TopologyFile) Value(key string) (string, bool) {
	v, ok := t.raw[key]
	return v, ok
}

// Keys are the keys the file sets, under their own names, in its order.
func (t *TopologyFile) Keys() []string { return t.keys }

// fileSettings reads the caller's settings, then the keys with no host or
// component in them.
func (p *parser) fileSettings(s *Settings) error {
	t := p.t
	t.Name = p.raw["TEST_NAME"]
	if s != nil && s.Read != nil {
		if err := s.Read(t); err != nil {
			return err
		}
	}
	if v, ok := p.raw["SSH_OPTIONS"]; ok {
		t.SSHOptions = strings.Fields(v)
	}
	if v, ok := p.raw["BACKEND_START"]; ok {
		if t.BackendStart = strings.Fields(v); len(t.BackendStart) == 0 {
			return p.err("BACKEND_START", "empty command")
		}
	}
	t.RemoteBin = "ship"
	if v, ok := p.raw["REMOTE_BIN"]; ok {
		if v != "ship" && v != "path" && !strings.HasPrefix(v, "/") {
			return p.err("REMOTE_BIN", "%q: want ship, path or an absolute directory", v)
		}
		t.RemoteBin = v
	}
	return nil
}

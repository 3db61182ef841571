package settings

import (
	"time"

	"github.com/hoplat/hoplat/hosts"
)

// File is a topology file as hopbench reads it: the hosts, where each
// component runs and the ssh keys (hosts.TopologyFile), and every hopbench
// setting the file gives. A setting the file does not set keeps its zero
// value and has no entry in Lines, so that hopbench applies it over its
// defaults and then applies the flags the user gave over it.
type File struct {
	*hosts.TopologyFile

	// hopbench's settings, one key per flag (see FlagKeys), raw where the
	// driver owns the vocabulary and typed where the syntax is generic.
	Backend string
	// Backends are BACKEND's entries, one for a single backend.
	Backends []string
	// Replicas are REPLICA's servers, mysql-rw's replicas.
	Replicas []string
	// Instances is CLIENT_INSTANCES: clients run at once, 0 when unset.
	Instances     int
	Proto         string
	Command       string
	Paths         []string // relay names as written: direct, epoll, …
	Transports    []string
	Threads       []int
	Time          time.Duration
	RoundRequests int
	Budget        time.Duration
	Warmup        time.Duration
	Runs          int
	Discard       int
	Hops          []int
	ServiceTimes  []time.Duration
	Sizes         []int
	Rows          []int
	Placement     string // --placement as written; excludes <COMPONENT>_CPUS
	Nice          int
	RelayLock     string
	Stats         bool
	Trace         bool
	Format        string
	Out           string
	Quiet         bool
	Verbose       bool
	Wide          bool
	History       string // --history: the file of this machine's runs

	// Proxies are the PROXY_<NAME> keys as hopbench's --proxy takes
	// them, NAME=value (name lower-cased), in the file's order.
	Proxies []string
}

// Read reads and parses the topology file at path.
func Read(path string) (*File, error) {
	f := &File{}
	tp, err := hosts.ReadTopology(path, f.keys())
	if err != nil {
		return nil, err
	}
	f.TopologyFile = tp
	return f, nil
}

// Parse parses a topology file's contents; name is what errors call the
// file.
func Parse(name string, src []byte) (*File, error) {
	f := &File{}
	tp, err := hosts.ParseTopology(name, src, f.keys())
	if err != nil {
		return nil, err
	}
	f.TopologyFile = tp
	return f, nil
}

// keys are the settings as hosts' parser takes them, read into f.
func (f *File) keys() *hosts.Settings {
	s := &hosts.Settings{Families: []string{"PROXY_"}, Aliases: aliases,
		Read: func(t *hosts.TopologyFile) error {
			f.TopologyFile = t
			return f.read()
		}}
	for _, k := range keyTable {
		s.Keys = append(s.Keys, k.key)
	}
	return s
}

package hosts

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hoplat/hoplat/roles"
)

// Kind is how hoplat reaches a host.
type Kind string

const (
	Local Kind = "local" // this machine, its own network namespace
	NetNS Kind = "netns" // a network namespace hoplat creates on this machine
	SSH   Kind = "ssh"   // another machine, through the system's OpenSSH client
)

// Host is one machine of a topology as the file declares it.
type Host struct {
	Name string // [a-z][a-z0-9]{0,11}: HOST_DB declares "db"
	Kind Kind
	// Namespace is a netns host's short name, NAME in netns:NAME; the
	// namespace created is hoplat-<pid>-NAME.
	Namespace string
	// User, Addr and Port are an ssh host's target; Port 0 leaves the
	// port to the user's ssh config (22 by default).
	User string
	Addr string
	Port int
	// Via names the netns host whose namespace the ssh client runs in, for
	// an ssh server reachable only from there; "" runs it on this machine.
	Via  string
	Spec string // the value as written: netns:db, ssh://me@10.0.0.2:2222
}

// Components hoplat places on hosts.
const (
	Client  = roles.Client  // pingpong
	Relay   = roles.Relay   // every relay of a path: hoprelay, socat, HAProxy
	Server  = roles.Server  // the embedded responder, pongd
	Backend = roles.Backend // a real database server (--backend mysql://)
)

// Components lists them in the order the file documents them.
var Components = []string{Client, Relay, Server, Backend}

// Place is where one component runs.
type Place struct {
	Host string // a Host's Name
	// CPUs is the CPU list as written ("0-3;8"), checked for syntax; it is
	// checked against the CPUs online where the component runs, which may
	// be another machine.
	CPUs string
}

// TopologyFile is a parsed topology file: the hosts, where each component runs,
// and every hopbench setting the file gives. A field the file does not set
// keeps its zero value and has no entry in Lines, so that the driver applies
// it over its defaults and then applies the flags the user gave over it.
// It is what the file declares; the processes running on those hosts are
// the driver's Topology, and the CPUs' own layout is affinity.CPULayout.
type TopologyFile struct {
	File string // the path it was read from, for error messages
	Name string // TEST_NAME

	Hosts []Host           // in the order the file declares them
	Place map[string]Place // every component in Components; see ParseTopology
	// Servers are the hosts SERVER_HOST lists, Place[Server].Host first:
	// with several, an embedded responder runs on each and client
	// instances take them round-robin, as RonDB's SERVER_HOST="a;b".
	Servers []string

	// SSHOptions are extra arguments for every ssh and scp command (-i
	// KEY, -o Option=value), after BatchMode and hoplat's control socket.
	SSHOptions []string
	// BackendStart is the command, split at spaces, that starts the real
	// backend (BACKEND) on BACKEND_HOST for the run, inside its namespace
	// when that host is one, so that a database can live on a host the
	// run itself creates; nil when the backend is already running.
	BackendStart []string
	// RemoteBin is where an ssh host's hoplat binaries come from: "ship"
	// (default: copied there for its GOOS/GOARCH), "path" (its PATH), or
	// an absolute directory on that host.
	RemoteBin string

	// Lines maps every key the file set to its line number, under the
	// names above (THREADS for THREAD_COUNTS_TO_RUN).
	Lines map[string]int
	// written is the key as the file spelled it, for messages.
	written map[string]string
	raw     map[string]string // the values by key, for Value
	keys    []string          // the keys in the file's order, for Keys
}

// Has reports whether the file set key.
func (t *TopologyFile) Has(key string) bool { _, ok := t.Lines[key]; return ok }

// Errorf is an error about the value of key, naming the file and the line
// that set it, for checks the driver makes after parsing (a relay name, a
// placement against the CPUs online).
func (t *TopologyFile) Errorf(key string, format string, args ...any) error {
	return &Error{File: t.File, Line: t.Lines[key], Key: t.spelled(key), Err: fmt.Errorf(format, args...)}
}

func (t *TopologyFile) spelled(key string) string {
	if w, ok := t.written[key]; ok {
		return w
	}
	return key
}

// Error is a topology file error: the file, line and key at fault.
type Error struct {
	File string
	Line int    // 0 when no line is at fault (a missing key)
	Key  string // "" for a line that is not KEY=value
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("topology ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": ")
		b.WriteString(e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// maxFileBytes bounds a topology file; the longest real one is a few dozen
// lines.
const maxFileBytes = 1 << 20

// ReadTopology reads and parses the topology file at path, with the
// caller's settings s (nil for none).
func ReadTopology(path string, s *Settings) (*TopologyFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("topology: read %s: %w", path, err)
	}
	return ParseTopology(path, b, s)
}

// ParseTopology parses a topology file's contents; name is what errors
// call the file. Keys beyond the hosts', places' and ssh's are s's (nil
// for none): any other is an error.
//
// Components not placed by <COMPONENT>_HOST run on a default host: the
// client on the first host declared (local when none is), the relay and the
// server on the client's host, the backend on the server's host.
func ParseTopology(name string, src []byte, s *Settings) (*TopologyFile, error) {
	if len(src) > maxFileBytes {
		return nil, &Error{File: name, Err: fmt.Errorf("larger than %d bytes", maxFileBytes)}
	}
	p := &parser{t: &TopologyFile{File: name, Lines: map[string]int{}, written: map[string]string{}}, s: s, raw: map[string]string{}}
	if err := p.lines(src); err != nil {
		return nil, err
	}
	p.t.raw, p.t.keys = p.raw, p.keys
	if err := p.fileSettings(s); err != nil {
		return nil, err
	}
	if err := p.hosts(); err != nil {
		return nil, err
	}
	if err := p.places(); err != nil {
		return nil, err
	}
	return p.t, nil
}

// Up brings the file's hosts up (see the package function Up), with the
// file's SSH_OPTIONS and REMOTE_BIN where o leaves them unset.
func (t *TopologyFile) Up(ctx context.Context, o Options) (*Testbed, error) {
	if o.SSHOptions == nil {
		o.SSHOptions = t.SSHOptions
	}
	if o.RemoteBin == "" {
		o.RemoteBin = t.RemoteBin
	}
	tb, err := Up(ctx, t.Hosts, o)
	if err != nil {
		return nil, fmt.Errorf("topology %s: %w", t.File, err)
	}
	return tb, nil
}

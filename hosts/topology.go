package hosts

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hoplat/hoplat/affinity"
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
	Client  = "client"  // pingpong
	Relay   = "relay"   // every relay of a path: hoprelay, socat, HAProxy
	Server  = "server"  // the embedded responder, pongd
	Backend = "backend" // a real database server (--backend mysql://)
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

// Topology is a parsed topology file: the hosts, where each component runs,
// and every hopbench setting the file gives. A field the file does not set
// keeps its zero value and has no entry in Lines, so that the driver applies
// it over its defaults and then applies the flags the user gave over it.
type Topology struct {
	File string // the path it was read from, for error messages
	Name string // TEST_NAME

	Hosts []Host           // in the order the file declares them
	Place map[string]Place // every component in Components; see ParseTopology

	// hopbench's settings, one key per flag (see FlagKeys), raw where the
	// driver owns the vocabulary and typed where the syntax is generic.
	Backend      string
	Proto        string
	Command      string
	Paths        []string // relay names as written: direct, epoll, …
	Transports   []string
	Threads      []int
	Time         time.Duration
	Warmup       time.Duration
	Runs         int
	Discard      int
	Hops         []int
	ServiceTimes []time.Duration
	Sizes        []int
	Rows         []int
	Placement    string // --placement as written; excludes <COMPONENT>_CPUS
	Nice         int
	RelayLock    string
	Stats        bool
	Format       string
	Out          string
	Quiet        bool

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
}

// Has reports whether the file set key.
func (t *Topology) Has(key string) bool { _, ok := t.Lines[key]; return ok }

// Errorf is an error about the value of key, naming the file and the line
// that set it, for checks the driver makes after parsing (a relay name, a
// placement against the CPUs online).
func (t *Topology) Errorf(key string, format string, args ...any) error {
	return &Error{File: t.File, Line: t.Lines[key], Key: t.spelled(key), Err: fmt.Errorf(format, args...)}
}

func (t *Topology) spelled(key string) string {
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

// FlagKeys maps each of hopbench's flags to the key that sets it in a
// topology file. Keys not in this map (hosts, placement on hosts, ssh) have
// no flag.
var FlagKeys = map[string]string{
	"backend":      "BACKEND",
	"proto":        "PROTO",
	"command":      "COMMAND",
	"paths":        "PATHS",
	"transports":   "TRANSPORTS",
	"threads":      "THREADS",
	"time":         "TIME",
	"warmup":       "WARMUP",
	"runs":         "RUNS",
	"discard":      "DISCARD",
	"hops":         "HOPS",
	"service-time": "SERVICE_TIME",
	"size":         "SIZE",
	"rows":         "ROWS",
	"placement":    "PLACEMENT",
	"nice":         "NICE",
	"relay-lock":   "RELAY_LOCK",
	"stats":        "STATS",
	"format":       "FORMAT",
	"out":          "OUT",
	"quiet":        "QUIET",
}

// aliases are RonDB autobench.conf's names for the same settings
// (field-notes.md §5), so that a line pasted from there means the same here.
var aliases = map[string]string{
	"THREAD_COUNTS_TO_RUN": "THREADS",
	"MAX_TIME":             "TIME",
	"BENCHMARK_CPUS":       "CLIENT_CPUS",
}

// The vocabularies the driver accepts, checked here so that a typo is
// reported at its line; a test keeps them equal to the driver's.
var (
	relayNames     = []string{"direct", "none", "goroutine", "epoll", "splice", "sockmap", "socat", "haproxy"}
	transportNames = []string{"tcp", "unix"}
	protoNames     = []string{"echo", "mysql"}
	commandNames   = []string{"ping", "select1", "point-select", "oltp-ro", "query"}
	lockNames      = []string{"none", "conn", "global"}
	formatNames    = []string{"text", "json", "csv"}
)

// maxFileBytes bounds a topology file; the longest real one is a few dozen
// lines.
const maxFileBytes = 1 << 20

// ReadTopology reads and parses the topology file at path.
func ReadTopology(path string) (*Topology, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("topology: read %s: %w", path, err)
	}
	return ParseTopology(path, b)
}

// ParseTopology parses a topology file's contents; name is what errors
// call the file.
//
// Components not placed by <COMPONENT>_HOST run on a default host: the
// client on the first host declared (local when none is), the relay and the
// server on the client's host, the backend on the server's host.
func ParseTopology(name string, src []byte) (*Topology, error) {
	if len(src) > maxFileBytes {
		return nil, &Error{File: name, Err: fmt.Errorf("larger than %d bytes", maxFileBytes)}
	}
	p := &parser{t: &Topology{File: name, Lines: map[string]int{}, written: map[string]string{}}, raw: map[string]string{}}
	if err := p.lines(src); err != nil {
		return nil, err
	}
	if err := p.settings(); err != nil {
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

type parser struct {
	t    *Topology
	raw  map[string]string // canonical key -> value
	keys []string          // canonical keys in file order
}

func (p *parser) errAt(line int, key string, format string, args ...any) error {
	return &Error{File: p.t.File, Line: line, Key: key, Err: fmt.Errorf(format, args...)}
}

func (p *parser) err(key string, format string, args ...any) error {
	return p.errAt(p.t.Lines[key], p.t.spelled(key), format, args...)
}

// lines splits the file into KEY=value assignments in the subset of shell
// syntax that autobench.conf uses: blank lines, # comments, an optional
// `export`, and a value bare, "double-quoted" (with \" \\ \$ escapes) or
// 'single-quoted', followed by nothing but an optional comment.
func (p *parser) lines(src []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, maxFileBytes+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			line = strings.TrimSpace(rest)
		}
		key, rest, ok := strings.Cut(line, "=")
		if !ok {
			return p.errAt(n, "", "line %q: want KEY=value", clip(line))
		}
		if !validKey(key) {
			return p.errAt(n, "", "key %q: want upper case letters, digits and _ (KEY=value, no spaces around =)", clip(key))
		}
		value, err := unquote(rest)
		if err != nil {
			return p.errAt(n, key, "%v", err)
		}
		canon := key
		if a, ok := aliases[key]; ok {
			canon = a
		}
		if !knownKey(canon) {
			return p.errAt(n, key, "unknown key%s", suggest(key))
		}
		if prev, dup := p.t.Lines[canon]; dup {
			what := ""
			if w := p.t.written[canon]; w != key {
				what = " (as " + w + ")"
			}
			return p.errAt(n, key, "already set%s at line %d", what, prev)
		}
		p.t.Lines[canon] = n
		p.t.written[canon] = key
		p.raw[canon] = value
		p.keys = append(p.keys, canon)
	}
	return nil
}

func validKey(k string) bool {
	if k == "" || k[0] < 'A' || k[0] > 'Z' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// unquote reads the value part of a line: everything after `=`.
func unquote(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	var val strings.Builder
	var rest string
	switch s[0] {
	case '"':
		i := 1
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`, s[i+1]) >= 0 {
				i++
			}
			val.WriteByte(s[i])
		}
		if i == len(s) {
			return "", errors.New("unterminated \"")
		}
		rest = s[i+1:]
	case '\'':
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", errors.New("unterminated '")
		}
		val.WriteString(s[1 : 1+end])
		rest = s[2+end:]
	default:
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		val.WriteString(s[:end])
		rest = s[end:]
		if strings.ContainsAny(val.String(), `"'`) {
			return "", fmt.Errorf("value %q: quote the whole value", clip(val.String()))
		}
	}
	rest = strings.TrimSpace(rest)
	if rest != "" && rest[0] != '#' {
		return "", fmt.Errorf("text %q after the value: quote a value with spaces", clip(rest))
	}
	return val.String(), nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Keys with no flag.
var fileKeys = []string{"TEST_NAME", "SSH_OPTIONS", "REMOTE_BIN", "BACKEND_START"}

func knownKey(k string) bool {
	for _, v := range FlagKeys {
		if v == k {
			return true
		}
	}
	if slices.Contains(fileKeys, k) {
		return true
	}
	for _, c := range Components {
		up := strings.ToUpper(c)
		if k == up+"_HOST" || k == up+"_CPUS" {
			return true
		}
	}
	if name, ok := strings.CutPrefix(k, "HOST_"); ok {
		name, _ = strings.CutSuffix(name, "_VIA")
		return validHostName(strings.ToLower(name))
	}
	return false
}

// suggest names a known key close to an unknown one: the same words in
// another order or one edit away covers most typos of these short keys.
func suggest(k string) string {
	if name, ok := strings.CutPrefix(k, "HOST_"); ok {
		return fmt.Sprintf(" (HOST_NAME declares a host: %q is not a host name, want a letter then up to 11 letters or digits)", strings.ToLower(name))
	}
	var known []string
	for _, v := range FlagKeys {
		known = append(known, v)
	}
	known = append(known, fileKeys...)
	for _, c := range Components {
		known = append(known, strings.ToUpper(c)+"_HOST", strings.ToUpper(c)+"_CPUS")
	}
	for a := range aliases {
		known = append(known, a)
	}
	slices.Sort(known)
	for _, c := range known {
		if editDistance(k, c) <= 2 {
			return fmt.Sprintf(" (did you mean %s?)", c)
		}
	}
	return ""
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (p *parser) settings() error {
	t := p.t
	var err error
	str := func(key string, dst *string, vocab []string) {
		v, ok := p.raw[key]
		if !ok || err != nil {
			return
		}
		if vocab != nil && !slices.Contains(vocab, v) {
			err = p.err(key, "%q: want %s", v, strings.Join(vocab, ", "))
			return
		}
		*dst = v
	}
	// list returns the items of key's list value, nil when key is absent
	// or an error is already reported.
	list := func(key string) []string {
		v, ok := p.raw[key]
		if !ok || err != nil {
			return nil
		}
		items, e := splitList(v)
		if e != nil {
			err = p.err(key, "%q: %v", v, e)
			return nil
		}
		return items
	}
	words := func(key string, dst *[]string, vocab []string) {
		for _, it := range list(key) {
			it = strings.ToLower(it)
			if !slices.Contains(vocab, it) {
				err = p.err(key, "%q: want %s", it, strings.Join(vocab, ", "))
				return
			}
			*dst = append(*dst, it)
		}
	}
	ints := func(key string, dst *[]int, lo int) {
		for _, it := range list(key) {
			n, e := strconv.Atoi(it)
			if e != nil || n < lo {
				err = p.err(key, "%q: want whole numbers of at least %d", it, lo)
				return
			}
			*dst = append(*dst, n)
		}
	}
	integer := func(key string, dst *int, lo int) {
		v, ok := p.raw[key]
		if !ok || err != nil {
			return
		}
		n, e := strconv.Atoi(v)
		if e != nil || n < lo {
			err = p.err(key, "%q: want a whole number of at least %d", v, lo)
			return
		}
		*dst = n
	}
	duration := func(key string, dst *time.Duration, positive bool) {
		v, ok := p.raw[key]
		if !ok || err != nil {
			return
		}
		d, e := parseDuration(v)
		if e != nil {
			err = p.err(key, "%v", e)
			return
		}
		if d < 0 || positive && d == 0 {
			err = p.err(key, "%q: must be positive", v)
			return
		}
		*dst = d
	}
	boolean := func(key string, dst *bool) {
		v, ok := p.raw[key]
		if !ok || err != nil {
			return
		}
		switch strings.ToLower(v) {
		case "1", "yes", "true", "on":
			*dst = true
		case "0", "no", "false", "off":
			*dst = false
		default:
			err = p.err(key, "%q: want yes or no", v)
		}
	}

	str("TEST_NAME", &t.Name, nil)
	str("BACKEND", &t.Backend, nil)
	if t.Backend != "" && t.Backend != "embedded" && !strings.HasPrefix(t.Backend, "mysql://") {
		return p.err("BACKEND", "want embedded or mysql://USER:PASS@HOST:PORT/DB")
	}
	str("PROTO", &t.Proto, protoNames)
	str("COMMAND", &t.Command, commandNames)
	words("PATHS", &t.Paths, relayNames)
	words("TRANSPORTS", &t.Transports, transportNames)
	ints("THREADS", &t.Threads, 1)
	duration("TIME", &t.Time, true)
	duration("WARMUP", &t.Warmup, false)
	integer("RUNS", &t.Runs, 1)
	integer("DISCARD", &t.Discard, 0)
	ints("HOPS", &t.Hops, 0)
	if v, ok := p.raw["SERVICE_TIME"]; ok && err == nil {
		items, e := splitList(v)
		if e != nil {
			return p.err("SERVICE_TIME", "%q: %v", v, e)
		}
		for _, it := range items {
			d, e := time.ParseDuration(it)
			if it == "0" {
				d, e = 0, nil
			}
			if e != nil || d < 0 {
				return p.err("SERVICE_TIME", "%q: want durations such as 0,20us,1ms", it)
			}
			t.ServiceTimes = append(t.ServiceTimes, d)
		}
	}
	ints("SIZE", &t.Sizes, 1)
	ints("ROWS", &t.Rows, 0)
	str("PLACEMENT", &t.Placement, nil)
	if v, ok := p.raw["NICE"]; ok && err == nil {
		n, e := strconv.Atoi(v)
		if e != nil || n < -20 || n > 19 {
			return p.err("NICE", "%q: want -20 to 19", v)
		}
		t.Nice = n
	}
	str("RELAY_LOCK", &t.RelayLock, lockNames)
	boolean("STATS", &t.Stats)
	str("FORMAT", &t.Format, formatNames)
	str("OUT", &t.Out, nil)
	boolean("QUIET", &t.Quiet)
	if err != nil {
		return err
	}
	if t.Has("DISCARD") && t.Has("RUNS") && t.Discard >= t.Runs {
		return p.err("DISCARD", "%d: must be below RUNS %d (line %d)", t.Discard, t.Runs, t.Lines["RUNS"])
	}
	if v, ok := p.raw["SSH_OPTIONS"]; ok {
		t.SSHOptions = strings.Fields(v)
	}
	if v, ok := p.raw["BACKEND_START"]; ok {
		if t.Backend == "" || t.Backend == "embedded" {
			return p.err("BACKEND_START", "starts a real backend: set BACKEND=mysql://… to the address it serves")
		}
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
	if t.Placement != "" {
		for _, c := range Components {
			if k := strings.ToUpper(c) + "_CPUS"; t.Has(k) {
				return p.err("PLACEMENT", "set with %s (line %d): give one or the other", k, t.Lines[k])
			}
		}
	}
	return nil
}

// splitList splits a LIST value: `1,2,4` or RonDB's `1;2;4`, spaces allowed.
func splitList(s string) ([]string, error) {
	var out []string
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty list")
	}
	for _, f := range strings.Split(strings.ReplaceAll(s, ";", ","), ",") {
		if f = strings.TrimSpace(f); f == "" {
			return nil, errors.New("empty item")
		}
		out = append(out, f)
	}
	return out, nil
}

// parseDuration reads Go duration syntax, or a bare number of seconds as
// autobench.conf's MAX_TIME is written.
func parseDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || n > 1e6 {
			return 0, fmt.Errorf("%q: want 0 to 1000000 seconds", s)
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want seconds (30) or a duration (30s, 500ms)", s)
	}
	return d, nil
}

func validHostName(s string) bool {
	if s == "" || len(s) > 12 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ParseHost reads a host's spec: local, netns:NAME or
// ssh://user@host[:port] (an IPv6 host in brackets).
func ParseHost(name, spec string) (Host, error) {
	h := Host{Name: name, Spec: spec}
	switch {
	case spec == "local":
		h.Kind = Local
	case strings.HasPrefix(spec, "netns:"):
		h.Kind = NetNS
		h.Namespace = strings.TrimPrefix(spec, "netns:")
		if !validHostName(h.Namespace) {
			return Host{}, fmt.Errorf("%q: namespace name %q: want a letter then up to 11 lower-case letters or digits", spec, h.Namespace)
		}
	case strings.HasPrefix(spec, "ssh://"):
		h.Kind = SSH
		u, err := url.Parse(spec)
		if err != nil {
			return Host{}, fmt.Errorf("%q: %w", spec, err)
		}
		if u.User == nil || u.User.Username() == "" {
			return Host{}, fmt.Errorf("%q: want ssh://user@host[:port]", spec)
		}
		if _, has := u.User.Password(); has {
			return Host{}, fmt.Errorf("%q: no passwords in the file: hoplat uses your ssh keys (BatchMode)", spec)
		}
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
			return Host{}, fmt.Errorf("%q: want ssh://user@host[:port] and nothing after it", spec)
		}
		h.User, h.Addr = u.User.Username(), u.Hostname()
		if strings.HasPrefix(h.User, "-") || strings.HasPrefix(h.Addr, "-") || strings.ContainsAny(h.User+h.Addr, " \t'\"\\;$`") {
			return Host{}, fmt.Errorf("%q: user or host with characters ssh would read as options or shell", spec)
		}
		if h.Addr == "" {
			return Host{}, fmt.Errorf("%q: no host", spec)
		}
		if ps := u.Port(); ps != "" {
			port, err := strconv.Atoi(ps)
			if err != nil || port < 1 || port > 65535 {
				return Host{}, fmt.Errorf("%q: port %q: want 1 to 65535", spec, ps)
			}
			h.Port = port
		}
	default:
		return Host{}, fmt.Errorf("%q: want local, netns:NAME or ssh://user@host[:port]", spec)
	}
	return h, nil
}

// Target is an ssh host's destination as ssh(1) takes it: user@host.
func (h Host) Target() string {
	return h.User + "@" + h.Addr
}

// String is the host as reports name it: db (netns:db).
func (h Host) String() string { return h.Name + " (" + h.Spec + ")" }

func (p *parser) hosts() error {
	t := p.t
	for _, key := range p.keys {
		name, ok := strings.CutPrefix(key, "HOST_")
		if !ok || strings.HasSuffix(name, "_VIA") {
			continue
		}
		h, err := ParseHost(strings.ToLower(name), p.raw[key])
		if err != nil {
			return p.err(key, "%v", err)
		}
		if err := p.addHost(key, h); err != nil {
			return err
		}
	}
	for _, key := range p.keys {
		name, ok := strings.CutPrefix(key, "HOST_")
		if !ok {
			continue
		}
		name, ok = strings.CutSuffix(name, "_VIA")
		if !ok {
			continue
		}
		i := t.host(strings.ToLower(name))
		if i < 0 {
			return p.err(key, "no host %s (declare it with HOST_%s)", strings.ToLower(name), name)
		}
		via := p.raw[key]
		j := t.host(via)
		switch {
		case t.Hosts[i].Kind != SSH:
			return p.err(key, "host %s is %s: only an ssh host is reached through another", t.Hosts[i].Name, t.Hosts[i].Kind)
		case j < 0:
			return p.err(key, "%q: no such host", via)
		case t.Hosts[j].Kind != NetNS:
			return p.err(key, "%q is %s: an ssh client runs inside a netns host, or on this machine without _VIA", via, t.Hosts[j].Kind)
		}
		t.Hosts[i].Via = via
	}
	return nil
}

func (p *parser) addHost(key string, h Host) error {
	t := p.t
	for _, o := range t.Hosts {
		switch {
		case o.Name == h.Name:
			return p.err(key, "host %s declared twice", h.Name)
		case h.Kind == NetNS && o.Kind == NetNS && o.Namespace == h.Namespace:
			return p.err(key, "namespace %s is host %s already", h.Namespace, o.Name)
		case h.Kind == Local && o.Kind == Local:
			return p.err(key, "host %s is this machine, as %s is already", h.Name, o.Name)
		}
	}
	t.Hosts = append(t.Hosts, h)
	return nil
}

// host is the index of the host named name, or -1.
func (t *Topology) host(name string) int {
	return slices.IndexFunc(t.Hosts, func(h Host) bool { return h.Name == name })
}

// Host returns the host named name.
func (t *Topology) Host(name string) (Host, bool) {
	if i := t.host(name); i >= 0 {
		return t.Hosts[i], true
	}
	return Host{}, false
}

// HostOf returns the host component runs on.
func (t *Topology) HostOf(component string) Host {
	h, _ := t.Host(t.Place[component].Host)
	return h
}

// network is which set of addresses a host reaches: this machine's own
// ("", with every ssh host reached from here) or the namespaces'.
func (t *Topology) network(h Host) string {
	switch h.Kind {
	case NetNS:
		return "netns"
	case SSH:
		if h.Via != "" {
			return "netns"
		}
	}
	return ""
}

func (p *parser) places() error {
	t := p.t
	t.Place = map[string]Place{}
	defaults := map[string]string{Relay: Client, Server: Client, Backend: Server}
	for _, c := range Components {
		up := strings.ToUpper(c)
		pl := Place{}
		key := up + "_HOST"
		if v, ok := p.raw[key]; ok {
			if strings.Contains(v, ";") || strings.Contains(v, ",") {
				return p.err(key, "%q: one host per component", v)
			}
			if t.host(v) < 0 {
				if !strings.Contains(v, ":") && v != "local" {
					return p.err(key, "%q: no such host (declare it with HOST_%s=SPEC, or give a spec here)", v, strings.ToUpper(v))
				}
				// An inline spec, as autobench's SERVER_HOST gives an
				// address: it declares a host, or names one already
				// declared with the same spec.
				h, err := p.inlineHost(c, v)
				if err != nil {
					return p.err(key, "%v", err)
				}
				v = h
			}
			pl.Host = v
		} else if d, ok := defaults[c]; ok {
			pl.Host = t.Place[d].Host
		} else if len(t.Hosts) > 0 {
			pl.Host = t.Hosts[0].Name
		} else {
			if err := p.addHost(key, Host{Name: "local", Kind: Local, Spec: "local"}); err != nil {
				return err
			}
			pl.Host = "local"
		}
		key = up + "_CPUS"
		if v, ok := p.raw[key]; ok {
			if _, err := affinity.ParseListFor(v, anyCPU); err != nil {
				return p.err(key, "%v", err)
			}
			pl.CPUs = v
		}
		t.Place[c] = pl
	}
	// Every component must reach the next one's address.
	first := Client
	for _, c := range Components[1:] {
		a, b := t.HostOf(first), t.HostOf(c)
		if t.network(a) != t.network(b) {
			key := strings.ToUpper(c) + "_HOST"
			if !t.Has(key) {
				key = strings.ToUpper(first) + "_HOST"
			}
			return p.err(key, "%s on %s cannot reach %s on %s: hoplat never adds addresses to this machine's own network, so netns hosts reach only each other (and ssh hosts with _VIA)", first, a, c, b)
		}
	}
	return nil
}

// anyCPU accepts every CPU number a kernel supports (CONFIG_NR_CPUS is at
// most 8192): the file is checked for syntax, not against this machine.
var anyCPU = func() affinity.CPUSet {
	cpus := make([]int, 8192)
	for i := range cpus {
		cpus[i] = i
	}
	return affinity.NewCPUSet(cpus...)
}()

func (p *parser) inlineHost(component, spec string) (string, error) {
	for _, h := range p.t.Hosts {
		if h.Spec == spec {
			return h.Name, nil
		}
	}
	name := component
	h, err := ParseHost(name, spec)
	if err != nil {
		return "", err
	}
	switch h.Kind {
	case NetNS:
		h.Name = h.Namespace
	case Local:
		h.Name = "local"
	}
	if i := p.t.host(h.Name); i >= 0 {
		return "", fmt.Errorf("%q: host %s is %s already", spec, h.Name, p.t.Hosts[i].Spec)
	}
	p.t.Hosts = append(p.t.Hosts, h)
	return h.Name, nil
}

// Up brings the file's hosts up (see the package function Up), with the
// file's SSH_OPTIONS and REMOTE_BIN where o leaves them unset.
func (t *Topology) Up(ctx context.Context, o Options) (*Testbed, error) {
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

// Args renders the settings the file gives as hopbench's flags, in
// FlagKeys' terms, so that a caller can parse them ahead of the user's own
// (pflag keeps the last value given for a flag): the flags on the command
// line then override the file. The <COMPONENT>_CPUS of components on this
// machine (local and netns hosts share its CPUs) become --placement; those
// of components on ssh hosts do not, since --placement is read against this
// machine's CPUs: they are the caller's to pass as --cpus there (Place).
func (t *Topology) Args() []string {
	var a []string
	add := func(key, flag, value string) {
		if t.Has(key) {
			a = append(a, "--"+flag+"="+value)
		}
	}
	ints := func(v []int) string {
		s := make([]string, len(v))
		for i, n := range v {
			s[i] = strconv.Itoa(n)
		}
		return strings.Join(s, ",")
	}
	durs := func(v []time.Duration) string {
		s := make([]string, len(v))
		for i, d := range v {
			s[i] = d.String()
		}
		return strings.Join(s, ",")
	}
	add("BACKEND", "backend", t.Backend)
	add("PROTO", "proto", t.Proto)
	add("COMMAND", "command", t.Command)
	add("PATHS", "paths", strings.Join(t.Paths, ","))
	add("TRANSPORTS", "transports", strings.Join(t.Transports, ","))
	add("THREADS", "threads", ints(t.Threads))
	add("TIME", "time", t.Time.String())
	add("WARMUP", "warmup", t.Warmup.String())
	add("RUNS", "runs", strconv.Itoa(t.Runs))
	add("DISCARD", "discard", strconv.Itoa(t.Discard))
	add("HOPS", "hops", ints(t.Hops))
	add("SERVICE_TIME", "service-time", durs(t.ServiceTimes))
	add("SIZE", "size", ints(t.Sizes))
	add("ROWS", "rows", ints(t.Rows))
	add("PLACEMENT", "placement", t.Placement)
	if !t.Has("PLACEMENT") {
		var spec []string
		for _, c := range []string{Client, Relay, Server} {
			if p := t.Place[c]; p.CPUs != "" && t.HostOf(c).Kind != SSH {
				spec = append(spec, c+"="+p.CPUs)
			}
		}
		if len(spec) > 0 {
			a = append(a, "--placement="+strings.Join(spec, " "))
		}
	}
	add("NICE", "nice", strconv.Itoa(t.Nice))
	add("RELAY_LOCK", "relay-lock", t.RelayLock)
	add("STATS", "stats", strconv.FormatBool(t.Stats))
	add("FORMAT", "format", t.Format)
	add("OUT", "out", t.Out)
	add("QUIET", "quiet", strconv.FormatBool(t.Quiet))
	return a
}

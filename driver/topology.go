package driver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/proxyconf"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// ReadyTimeout bounds how long a component may take to start listening.
const ReadyTimeout = 10 * time.Second

// TopologySpec says what to start for one stage.
type TopologySpec struct {
	TempRoot  string             // parent of the run's temp dir; "" for os.TempDir
	Backend   Backend            // zero: start pongd with Responder
	Responder Responder          // the embedded backend
	Nice      int                // niceness of the embedded backend; 0 leaves it
	Paths     []hop.Path         // direct paths need nothing started
	Relay     proxyconf.HopRelay // template for every hoprelay (Lock); Engine is set per path
	Stats     bool               // give every hoprelay a --stats file
	Locate    Locator            // nil: Locate
	// Placement gives the CPUs of the "server" and of every "relay"
	// process; the zero value pins nothing.
	Placement affinity.Placement
	Hosts     *hostBed // nil: every component on loopback here
	// Proxies are the user's own (--proxy): a path whose Relay is one's
	// Name goes through it.
	Proxies []Proxy
	// ReadyTimeout bounds a started proxy's wait to listen; 0 for
	// ReadyTimeout.
	ReadyTimeout time.Duration
	// Replicas are the servers a mysql-rw router reads from, after the
	// backend (its primary).
	Replicas []sockets.Addr
}

// Topology is the running set of processes for one stage.
type Topology struct {
	Dir     string                    // temp dir holding UNIX sockets, HAProxy's config, stats files
	Entries map[hop.Path]sockets.Addr // where the client connects for each path
	Skipped []hop.Skip
	Notes   []string              // what a path lacks, for the report's warnings (a proxy's CPU time not found)
	Stats   map[hop.Path][]string // hoprelay --stats files of each path, one per hop
	Pinning map[string]string     // component → CPUs it obtained
	// RelayCPUs is what the relay processes of each path obtained, when
	// placed ("|" between differing hops).
	RelayCPUs map[hop.Path]string

	procs      []*hosts.Process
	backend    map[hop.Transport]sockets.Addr // the backend's listeners, for the relays
	nBackend   int                            // procs[:nBackend] serve the backend; the rest, the paths
	nNotes     int                            // Notes[:nNotes] are the backend's
	statsProcs map[string]*hosts.Process      // hoprelay by its --stats file
	relayProcs map[hop.Path][]*hosts.Process  // the relay processes of each path, one per hop (HAProxy: shared)
	server     *hosts.Process                 // the embedded responder when it runs here; nil otherwise
	lastPinned string                         // CPUs of the process start last pinned
}

// Build starts the backend and every relay the paths need, each awaited by
// its readiness line or a connect probe. A path whose program is missing is
// skipped with the reason; any other failure stops what was started.
func Build(ctx context.Context, spec TopologySpec) (_ *Topology, err error) {
	if spec.Locate == nil {
		spec.Locate = Locate
	}
	dir, err := os.MkdirTemp(spec.TempRoot, "hopbench-")
	if err != nil {
		return nil, fmt.Errorf("driver: build topology: %w", err)
	}
	t := &Topology{Dir: dir, Entries: map[hop.Path]sockets.Addr{}, Stats: map[hop.Path][]string{}, Pinning: map[string]string{}, RelayCPUs: map[hop.Path]string{}}
	defer func() {
		if err != nil {
			t.Stop()
		}
	}()
	if t.backend, err = t.startBackend(ctx, spec); err != nil {
		return nil, err
	}
	t.nBackend, t.nNotes = len(t.procs), len(t.Notes)
	if err := t.startPaths(ctx, spec); err != nil {
		return nil, err
	}
	return t, nil
}

// Respawn stops every process the paths started (hoprelays, socat,
// HAProxy, a proxy the user's command starts) and starts each afresh, the
// backend left running. A process's memory and threads land where they
// land for as long as it lives; respawned between the cycles of
// interleaved rounds, each round meets relays placed anew, so what that
// placement moves shows in the run's own rounds, not between runs. (socat
// forks a fresh child per connection anyway.) The entries may
// change (new ports); the stats files keep their names.
func (t *Topology) Respawn(ctx context.Context, spec TopologySpec) error {
	if spec.Locate == nil {
		spec.Locate = Locate
	}
	backend, rest := t.procs[:t.nBackend], t.procs[t.nBackend:]
	errs := make([]error, len(rest))
	var wg sync.WaitGroup
	for i, p := range rest {
		wg.Go(func() { errs[i] = p.Stop() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("driver: respawn the relays: %w", err)
	}
	// A relay killed past its grace leaves its UNIX socket behind, which
	// its successor could not bind.
	socks, _ := filepath.Glob(filepath.Join(t.Dir, "*.sock"))
	for _, f := range socks {
		if a, ok := t.backend[hop.UNIX]; !ok || a.Path != f {
			os.Remove(f)
		}
	}
	t.procs = slices.Clip(backend)
	t.Notes = t.Notes[:t.nNotes]
	t.Entries, t.Stats, t.Skipped = map[hop.Path]sockets.Addr{}, map[hop.Path][]string{}, nil
	t.statsProcs, t.relayProcs, t.RelayCPUs = nil, nil, map[hop.Path]string{}
	return t.startPaths(ctx, spec)
}

// startPaths starts what every path needs between the client and the
// backend, and records where the client connects to each.
func (t *Topology) startPaths(ctx context.Context, spec TopologySpec) error {
	backend := t.backend
	var viaHAProxy []hop.Path
	for _, p := range spec.Paths {
		up, ok := backend[p.Upstream]
		if p.Hops == 0 {
			up, ok = backend[p.Client]
		}
		ok = ok && spec.Hosts.reaches(spec.Backend, p, up)
		switch {
		case !ok:
			t.Skipped = append(t.Skipped, hop.Skip{Path: p.Name(), Reason: spec.Hosts.noSocket(spec.Backend, p, fmt.Sprintf("the backend has no %s socket", p.Upstream))})
		case p.Hops == 0:
			t.Entries[p] = up
		case spec.proxyOf(p) != nil:
			if err := t.startProxy(ctx, spec, spec.proxyOf(p), p, up); err != nil {
				var missing *missingError
				if !errors.As(err, &missing) {
					return err
				}
				t.Skipped = append(t.Skipped, hop.Skip{Path: p.Name(), Reason: missing.Error()})
			}
		case p.Relay == hop.HAProxy:
			viaHAProxy = append(viaHAProxy, p)
		default:
			if err := t.startChain(ctx, spec, p, spec.upstreams(p, up)); err != nil {
				var missing *missingError
				if !errors.As(err, &missing) {
					return err
				}
				t.Skipped = append(t.Skipped, hop.Skip{Path: p.Name(), Reason: missing.Error()})
			}
		}
	}
	if len(viaHAProxy) > 0 {
		if err := t.startHAProxy(ctx, spec, viaHAProxy, backend); err != nil {
			var missing *missingError
			if !errors.As(err, &missing) {
				return err
			}
			for _, p := range viaHAProxy {
				t.Skipped = append(t.Skipped, hop.Skip{Path: p.Name(), Reason: missing.Error()})
			}
		}
	}
	return nil
}

// missingError is a program that is not installed: its paths are skipped,
// not failed.
type missingError struct{ err error }

func (m *missingError) Error() string { return m.err.Error() }

func (t *Topology) locate(spec TopologySpec, name string) (string, error) {
	p, err := spec.Locate(name)
	if err != nil {
		return "", &missingError{err}
	}
	return p, nil
}

func (t *Topology) startBackend(ctx context.Context, spec TopologySpec) (map[hop.Transport]sockets.Addr, error) {
	out := map[hop.Transport]sockets.Addr{}
	if !spec.Backend.Embedded() {
		if err := t.startRealBackend(ctx, spec); err != nil {
			return nil, err
		}
		if a := spec.Backend.TCP; a != nil {
			out[hop.TCP] = *a
		}
		if a := spec.Backend.UNIX; a != nil {
			out[hop.UNIX] = *a
		}
		return out, nil
	}
	if spec.Hosts != nil {
		return t.startBackendOn(ctx, spec)
	}
	bin, err := spec.Locate("pongd")
	if err != nil {
		return nil, err
	}
	listen := []sockets.Addr{TCPAddr(0), UNIXAddr(filepath.Join(t.Dir, "pongd.sock"))}
	p, err := t.startServer(spec, spec.Responder.Args(bin, listen))
	if err != nil {
		return nil, err
	}
	t.server = p
	addrs, err := p.Listening(ctx, len(listen), ReadyTimeout)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if a.IsUnix() {
			out[hop.UNIX] = a
		} else {
			out[hop.TCP] = a
		}
	}
	return out, nil
}

// startServer starts pongd with the niceness asked for, set on the thread
// that forks it so that every thread pongd creates has it (Command.Nice).
func (t *Topology) startServer(spec TopologySpec, argv []string) (*hosts.Process, error) {
	p, err := t.startWith(spec, roles.Server, hosts.Command{Name: "pongd", Argv: argv, Nice: spec.Nice})
	if err != nil && spec.Nice != 0 {
		return nil, fmt.Errorf("nice %d for pongd: %w", spec.Nice, err)
	}
	return p, err
}

// start starts one component on the CPUs the placement gives its kind and
// records the CPUs it obtained, once per kind.
func (t *Topology) start(spec TopologySpec, component, name string, argv []string) (*hosts.Process, error) {
	return t.startWith(spec, component, hosts.Command{Name: name, Argv: argv})
}

// startWith is start with the whole command: a nice value, or Foreign for
// a user's proxy.
func (t *Topology) startWith(spec TopologySpec, component string, c hosts.Command) (*hosts.Process, error) {
	cpus, _ := spec.Placement.For(component)
	c.CPUs = cpus
	p, err := spec.Hosts.start(component, c)
	if err != nil {
		return nil, err
	}
	t.procs = append(t.procs, p)
	if cpus.Len() > 0 {
		if got := obtainedCPUs(p.PID()); got != "" {
			if _, ok := t.Pinning[component]; !ok {
				t.Pinning[component] = got
			}
			t.lastPinned = got
		}
	}
	return p, nil
}

// relayStarted records the relay process just started for paths, and
// the CPUs it obtained.
func (t *Topology) relayStarted(proc *hosts.Process, paths ...hop.Path) {
	if t.relayProcs == nil {
		t.relayProcs = map[hop.Path][]*hosts.Process{}
	}
	for _, p := range paths {
		t.relayProcs[p] = append(t.relayProcs[p], proc)
		if t.lastPinned != "" {
			t.RelayCPUs[p] = joinDistinct(append(strings.Split(t.RelayCPUs[p], "|"), t.lastPinned))
		}
	}
	t.lastPinned = ""
}

// relayCPUOf is the CPU time each relay process of path p has run so far.
func (t *Topology) relayCPUOf(p hop.Path) map[*hosts.Process]time.Duration {
	out := map[*hosts.Process]time.Duration{}
	for _, proc := range t.relayProcs[p] {
		if d, err := affinity.ProcessCPUTime(proc.PID()); err == nil {
			out[proc] = d
		}
	}
	return out
}

// upstreams is what the hop of path p next to the backend connects to:
// every server of a cluster when the hop's upstream leg is TCP, else the
// backend's one address up on that leg.
func (spec TopologySpec) upstreams(p hop.Path, up sockets.Addr) []sockets.Addr {
	if p.Upstream == hop.TCP && len(spec.Backend.Servers) > 1 {
		return spec.Backend.Servers
	}
	return []sockets.Addr{up}
}

// startChain starts p's hops from the backend outwards, each one's connect
// address the listen address of the one after it, and records where the
// client connects. The hop next to the backend connects to servers, a
// cluster's list or the backend's one address.
func (t *Topology) startChain(ctx context.Context, spec TopologySpec, p hop.Path, servers []sockets.Addr) error {
	if len(servers) > 1 && p.Relay == hop.Socat {
		return &missingError{fmt.Errorf("socat connects to one address, and the backend is a cluster of %d servers", len(servers))}
	}
	upstream := servers[0]
	for h := p.Hops; h >= 1; h-- {
		tr := p.Upstream
		if h == 1 {
			tr = p.Client
		}
		at := chainHop{p: p, nth: h, name: p.Name(), tr: tr}
		if p.Hops > 1 {
			at.name = fmt.Sprintf("%s hop %d", at.name, h)
		}
		var err error
		switch {
		case p.Relay.Routes() && h == p.Hops && p.Relay == hop.MySQLRW:
			upstream, err = t.startHopRelay(ctx, spec, at, append(servers[:1:1], spec.Replicas...)...)
		case (p.Relay.IsEngine() || p.Relay.Routes()) && h == p.Hops:
			upstream, err = t.startHopRelay(ctx, spec, at, servers...)
		case p.Relay.IsEngine() || p.Relay.Routes():
			upstream, err = t.startHopRelay(ctx, spec, at, upstream)
		case p.Relay == hop.Socat:
			upstream, err = t.startSocat(ctx, spec, at, upstream)
		default:
			err = fmt.Errorf("driver: %s: relay %q cannot be chained", p.Name(), p.Relay)
		}
		if err != nil {
			return err
		}
	}
	t.Entries[p] = upstream
	return nil
}

// chainHop is one hop of a path's chain: the path, the hop's place in it
// (1 next to the client), its process's name, and the transport it
// listens on.
type chainHop struct {
	p    hop.Path
	nth  int
	name string
	tr   hop.Transport
}

func (t *Topology) sockPath(p hop.Path, nth int) string {
	return filepath.Join(t.Dir, fmt.Sprintf("%s-%d.sock", proxyconf.SectionName(p.Name()), nth))
}

func (t *Topology) startHopRelay(ctx context.Context, spec TopologySpec, at chainHop, upstream ...sockets.Addr) (sockets.Addr, error) {
	p, nth, name, tr := at.p, at.nth, at.name, at.tr
	bin, err := t.locate(spec, "hoprelay")
	if err != nil {
		return sockets.Addr{}, err
	}
	if p.Relay == hop.Sockmap {
		// Where bpf() is refused (no CAP_BPF, an old kernel) the path
		// is skipped with the kernel's reason, as a missing peer is.
		if err := relay.CheckSockmap(); err != nil {
			return sockets.Addr{}, &missingError{fmt.Errorf("sockmap engine unavailable here: %w", err)}
		}
	}
	listen := spec.Hosts.tcpAt(roles.Relay, 0)
	if tr == hop.UNIX {
		listen = UNIXAddr(t.sockPath(p, nth))
	}
	h := spec.Relay
	h.Engine = string(p.Relay)
	if p.Relay.Routes() {
		if spec.Backend.Embedded() && spec.Responder.Proto != ProtoMySQL {
			return sockets.Addr{}, &missingError{fmt.Errorf("%s reads MySQL; the backend speaks %s", p.Relay, spec.Responder.Proto)}
		}
		h.Engine, h.Route = roles.Epoll, strings.TrimPrefix(string(p.Relay), "mysql-")
		h.User, h.Password = spec.Responder.User, spec.Responder.Password
		if !spec.Backend.Embedded() {
			h.User, h.Password = spec.Backend.User, spec.Backend.Password
		}
	}
	if spec.Stats {
		h.Stats = filepath.Join(t.Dir, fmt.Sprintf("%s-%d.stats.json", proxyconf.SectionName(p.Name()), nth))
		t.Stats[p] = append(t.Stats[p], h.Stats)
	}
	proc, err := t.start(spec, roles.Relay, name, h.Args(bin, listen, upstream...))
	if err != nil {
		return sockets.Addr{}, err
	}
	if h.Stats != "" {
		if t.statsProcs == nil {
			t.statsProcs = map[string]*hosts.Process{}
		}
		t.statsProcs[h.Stats] = proc
	}
	t.relayStarted(proc, p)
	addrs, err := proc.Listening(ctx, 1, ReadyTimeout)
	if err != nil {
		return sockets.Addr{}, err
	}
	return addrs[0], nil
}

// startAttempts bounds the retries of a component that must be given a
// port number (socat, HAProxy): the port is free when chosen but another
// process may take it before the component binds it.
const startAttempts = 3

func (t *Topology) startSocat(ctx context.Context, spec TopologySpec, at chainHop, upstream sockets.Addr) (sockets.Addr, error) {
	p, nth, name, tr := at.p, at.nth, at.name, at.tr
	bin, err := t.locate(spec, "socat")
	if err != nil {
		return sockets.Addr{}, err
	}
	for attempt := 1; ; attempt++ {
		listen := UNIXAddr(t.sockPath(p, nth))
		if tr == hop.TCP {
			port, err := FreePort()
			if err != nil {
				return sockets.Addr{}, err
			}
			listen = spec.Hosts.tcpAt(roles.Relay, port)
		}
		proc, err := t.start(spec, roles.Relay, name, SocatArgs(bin, listen, upstream))
		if err != nil {
			return sockets.Addr{}, err
		}
		t.relayStarted(proc, p)
		err = proc.Probe(ctx, listen, ReadyTimeout)
		if err == nil {
			return listen, nil
		}
		proc.Stop()
		if attempt == startAttempts || ctx.Err() != nil {
			return sockets.Addr{}, err
		}
	}
}

// startHAProxy runs one HAProxy process with a frontend/backend pair per
// path, in the foreground (proxyconf.HAProxyArgs).
func (t *Topology) startHAProxy(ctx context.Context, spec TopologySpec, paths []hop.Path, backend map[hop.Transport]sockets.Addr) error {
	bin, err := t.locate(spec, "haproxy")
	if err != nil {
		return err
	}
	cfgPath := filepath.Join(t.Dir, "haproxy.cfg")
	for attempt := 1; ; attempt++ {
		routes := make([]proxyconf.HAProxyRoute, len(paths))
		for i, p := range paths {
			listen := UNIXAddr(t.sockPath(p, 1))
			if p.Client == hop.TCP {
				port, err := FreePort()
				if err != nil {
					return err
				}
				listen = spec.Hosts.tcpAt(roles.Relay, port)
			}
			routes[i] = proxyconf.HAProxyRoute{Name: p.Name(), Listen: listen, Connect: spec.upstreams(p, backend[p.Upstream]),
				MySQL: !spec.Backend.Embedded(), CheckUser: spec.Backend.CheckUser}
		}
		if err := proxyconf.WriteHAProxy(cfgPath, routes); err != nil {
			return fmt.Errorf("driver: %w", err)
		}
		proc, err := t.start(spec, roles.Relay, "haproxy", proxyconf.HAProxyArgs(bin, cfgPath))
		if err != nil {
			return err
		}
		t.relayStarted(proc, paths...)
		for _, r := range routes {
			if err = proc.Probe(ctx, r.Listen, ReadyTimeout); err != nil {
				break
			}
		}
		if err == nil {
			for i, p := range paths {
				t.Entries[p] = routes[i].Listen
			}
			return nil
		}
		proc.Stop()
		if attempt == startAttempts || ctx.Err() != nil {
			return err
		}
	}
}

// FreePort asks the kernel for a TCP port that is free now, for programs
// that cannot report the port they bound (socat, HAProxy). It binds the
// wildcard address because socat's TCP4-LISTEN does.
func FreePort() (int, error) {
	l, err := net.Listen("tcp4", ":0")
	if err != nil {
		return 0, fmt.Errorf("driver: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop stops every process, then removes the temp dir and what is left in
// it. Relays stop together, each with its own grace period, so an
// interrupted run ends within one grace period however many paths it had;
// the processes started first (the backend) stop last, so no relay sees
// its upstream vanish while it still serves.
func (t *Topology) Stop() error {
	err := t.stopProcesses()
	t.procs = nil
	if t.Dir != "" {
		err = errors.Join(err, os.RemoveAll(t.Dir))
	}
	return err
}

// stopProcesses stops every process, the temp dir left to Stop.
func (t *Topology) stopProcesses() error {
	if len(t.procs) == 0 {
		return nil
	}
	first, rest := t.procs[0], t.procs[1:]
	errs := make([]error, len(rest)+1)
	var wg sync.WaitGroup
	for i, p := range rest {
		wg.Go(func() { errs[i+1] = p.Stop() })
	}
	wg.Wait()
	errs[0] = first.Stop()
	// Stopped once, reported once: Stop after a stats run's early stop
	// finds nothing left to stop.
	t.procs = nil
	return errors.Join(errs...)
}

// statsTimeout bounds the wait for a relay to write the stats SIGUSR1
// asked for.
const statsTimeout = 2 * time.Second

// snapshotStatsOf asks the hoprelays writing files for their stats now
// (SIGUSR1, which makes one replace its --stats file) and returns each
// file's totals. hoprelay renames the new file into place, so the old one
// is removed first and the new one's appearance is the answer. A relay
// that does not answer in time is left out, with an error saying so.
func (t *Topology) snapshotStatsOf(ctx context.Context, files []string) (map[string]relayTotals, error) {
	out := map[string]relayTotals{}
	var errs []error
	for _, file := range files {
		p, ok := t.statsProcs[file]
		if !ok {
			continue
		}
		os.Remove(file)
		if err := requestStats(p); err != nil {
			errs = append(errs, fmt.Errorf("driver: stats of %s: %w", p.Name, err))
			continue
		}
		if err := awaitFile(ctx, p, file); err != nil {
			errs = append(errs, err)
		}
		if tot, err := readRelayTotals(file); err == nil {
			out[file] = tot
		}
	}
	return out, errors.Join(errs...)
}

// awaitFile waits, bounded, for p to write file.
func awaitFile(ctx context.Context, p *hosts.Process, file string) error {
	if err := p.AwaitFile(ctx, file, statsTimeout); err != nil && ctx.Err() == nil {
		return fmt.Errorf("driver: stats of %s after SIGUSR1: %w", p.Name, err)
	} else if err != nil {
		return err
	}
	return nil
}

// Processes is every process the topology started, in start order.
func (t *Topology) Processes() []*hosts.Process { return t.procs }

package driver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// hostBed is a topology run's testbed and where each component runs on it.
// Every method is safe on a nil *hostBed, which is the run on loopback and
// leaves every address and command line as they are without a topology.
type hostBed struct {
	tp   *hosts.TopologyFile
	tb   *hosts.Testbed
	on   map[string]string     // component → host name
	kind map[string]hosts.Kind // host name → kind
	addr map[string]string     // host name → the address others dial
	info []hop.Host            // for the report, env included
}

// upHosts brings the topology's hosts up, or returns nil when the run has
// none. The caller closes the result once every stage has stopped its
// processes: Close deletes the namespaces they run in.
func upHosts(ctx context.Context, cfg Config) (*hostBed, error) {
	tp := cfg.Hosts
	if tp == nil {
		return nil, nil
	}
	// hopbench starts the client and the relays itself, as its own
	// children, so that their PIDs, CPUs and process groups are what the
	// loopback run has; an ssh host has no such command line.
	for _, c := range []string{roles.Client, roles.Relay} {
		if h := tp.HostOf(c); h.Kind == hosts.SSH {
			return nil, tp.Errorf(strings.ToUpper(c)+"_HOST", "%s is an ssh host: hopbench runs the server side (pongd) on ssh hosts, the %s on this machine or in a namespace", h, c)
		}
	}
	tb, err := tp.Up(ctx, hosts.Options{Binary: localBinary(cfg.Locate), Steps: hostSteps(cfg.Progress)})
	if err != nil {
		return nil, err
	}
	hb := &hostBed{tp: tp, tb: tb, on: map[string]string{}, kind: map[string]hosts.Kind{}, addr: map[string]string{}}
	for _, c := range hosts.Components {
		hb.on[c] = tp.Place[c].Host
	}
	for _, in := range tb.Hosts() {
		hb.kind[in.Name], hb.addr[in.Name] = in.Kind, in.Address
		h := hop.Host{Name: in.Name, Kind: string(in.Kind), Address: in.Address}
		if env, err := tb.Env(ctx, in.Name); err == nil {
			h.Env = &env
		} else if ctx.Err() != nil {
			return nil, errors.Join(ctx.Err(), tb.Close())
		}
		hb.info = append(hb.info, h)
	}
	return hb, nil
}

// localBinary is the testbed's Options.Binary: hoplat's binaries as the
// driver locates them, for this machine's platform; another platform's
// must be built (GOOS=… GOARCH=… go build) or put on the host's PATH
// (REMOTE_BIN=path).
func localBinary(locate Locator) func(name, goos, goarch string) (string, error) {
	return func(name, goos, goarch string) (string, error) {
		if goos != runtime.GOOS || goarch != runtime.GOARCH {
			return "", fmt.Errorf("hopbench has no %s/%s build of %s (set REMOTE_BIN=path with hoplat installed there, or a directory holding it)", goos, goarch, name)
		}
		return locate(name)
	}
}

// closed closes the testbed at the end of a run: a failure to remove
// something is a warning on a run that measured, an error joined to the
// run's own otherwise.
func (hb *hostBed) closed(rep *hop.Report, err error) (*hop.Report, error) {
	if hb == nil {
		return rep, err
	}
	cerr := hb.tb.Close()
	switch {
	case cerr == nil:
	case err == nil && rep != nil:
		rep.Warn(cerr.Error())
	default:
		err = errors.Join(err, cerr)
	}
	return rep, err
}

// server is the host of whatever answers at the end of every path: the
// embedded responder's, or a real backend's.
func (hb *hostBed) server(spec Backend) string {
	if spec.Embedded() {
		return hb.on[roles.Server]
	}
	return hb.on[hosts.Backend]
}

// argv is the command line that runs argv on component's host.
func (hb *hostBed) argv(component string, argv []string) ([]string, error) {
	if hb == nil {
		return argv, nil
	}
	return hb.tb.Argv(hb.on[component], argv)
}

// exposed reports whether a component on another host dials component:
// the server is dialled by relays and by direct clients, a relay by the
// client.
func (hb *hostBed) exposed(component string) bool {
	on := hb.on
	switch component {
	case roles.Server:
		return on[roles.Server] != on[roles.Relay] || on[roles.Server] != on[roles.Client]
	case roles.Relay:
		return on[roles.Relay] != on[roles.Client]
	}
	return false
}

// tcpAt is the TCP address component listens on at port: loopback when
// only its own host dials it, as without a topology, else its host's
// address, which is also what the others then dial.
func (hb *hostBed) tcpAt(component string, port int) sockets.Addr {
	a := TCPAddr(port)
	if hb != nil && hb.exposed(component) {
		a.Host = hb.addr[hb.on[component]]
	}
	return a
}

// start starts c on component's host: on this machine without a topology.
// Only an ssh host's start, which the server's alone may need, takes a
// context (startBackendOn).
func (hb *hostBed) start(component string, c hosts.Command) (*hosts.Process, error) {
	if hb == nil {
		return hosts.Start(c)
	}
	return hb.tb.Start(context.Background(), hb.on[component], c)
}

// noSocket is why path p has no backend address: the backend has no
// socket of that kind, or it is on another host than the component that
// would dial it (a UNIX socket does not cross hosts).
func (hb *hostBed) noSocket(spec Backend, p hop.Path, why string) string {
	if hb == nil {
		return why
	}
	from := roles.Relay
	if p.Hops == 0 {
		from = roles.Client
	}
	if hb.on[from] == hb.server(spec) {
		return why
	}
	return fmt.Sprintf("the %s runs on host %s and the server on host %s: a %s socket does not cross hosts", from, hb.on[from], hb.server(spec), p.Upstream)
}

// reaches reports whether the component dialling up on path p can reach
// it: a TCP address always, a UNIX socket only on its own host.
func (hb *hostBed) reaches(spec Backend, p hop.Path, up sockets.Addr) bool {
	if hb == nil || !up.IsUnix() {
		return true
	}
	from := roles.Relay
	if p.Hops == 0 {
		from = roles.Client
	}
	return hb.on[from] == hb.server(spec)
}

// startBackendOn starts pongd on the server's host: as hopbench's own child
// (wrapped by t.start) on this machine or in a namespace, through the
// testbed on an ssh host. It listens on TCP at the server host's address
// when another host dials it, and on a UNIX socket too unless it runs on
// an ssh host, whose file system no other component shares.
func (t *Topology) startBackendOn(ctx context.Context, spec TopologySpec) (map[hop.Transport]sockets.Addr, error) {
	hb := spec.Hosts
	host := hb.on[roles.Server]
	out := map[hop.Transport]sockets.Addr{}
	var p *hosts.Process
	n := 1
	if hb.kind[host] == hosts.SSH {
		bin, err := hb.tb.Binary(ctx, host, "pongd")
		if err != nil {
			return nil, err
		}
		listen := sockets.Addr{Network: "tcp", Host: sshListenHost(hb.addr[host])}
		// --placement is this machine's CPUs; SERVER_CPUS on an ssh host
		// are that host's, for pongd's own --cpus there.
		r := spec.Responder
		if cpus := hb.tp.Place[hosts.Server].CPUs; cpus != "" && r.CPUs == "" {
			r.CPUs = cpus
		}
		if p, err = hb.tb.Start(ctx, host, hosts.Command{Name: "pongd", Argv: r.Args(bin, []sockets.Addr{listen})}); err != nil {
			return nil, err
		}
		t.procs = append(t.procs, p)
	} else {
		bin, err := spec.Locate("pongd")
		if err != nil {
			return nil, err
		}
		listen := []sockets.Addr{hb.tcpAt(roles.Server, 0), UNIXAddr(filepath.Join(t.Dir, "pongd.sock"))}
		n = len(listen)
		if p, err = t.startServer(spec, spec.Responder.Args(bin, listen)); err != nil {
			return nil, err
		}
	}
	addrs, err := p.Listening(ctx, n, ReadyTimeout)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		switch {
		case a.IsUnix():
			out[hop.UNIX] = a
		case hb.kind[host] == hosts.SSH:
			a.Host = hb.addr[host]
			out[hop.TCP] = a
		default:
			out[hop.TCP] = a
		}
	}
	return out, nil
}

// sshListenHost is where pongd on an ssh host binds: the address the
// others dial when it is an IP literal, so that nothing listens beyond it;
// every address there when the target is a name, which only that host
// resolves to its own addresses reliably.
func sshListenHost(target string) string {
	if net.ParseIP(strings.Trim(target, "[]")) != nil {
		return strings.Trim(target, "[]")
	}
	return "0.0.0.0"
}

// BackendReadyTimeout bounds how long a backend that BACKEND_START starts
// may take to accept connections: a database recovering its files on a
// busy machine takes longer than a responder.
const BackendReadyTimeout = 60 * time.Second

// startRealBackend runs the topology's BACKEND_START on the backend's host,
// a child of hopbench like every component, and waits until the backend's
// address accepts a connection; nothing when the file has no such command.
func (t *Topology) startRealBackend(ctx context.Context, spec TopologySpec) error {
	hb := spec.Hosts
	if hb == nil || len(hb.tp.BackendStart) == 0 {
		return nil
	}
	host := hb.on[hosts.Backend]
	if hb.kind[host] == hosts.SSH {
		return hb.tp.Errorf("BACKEND_START", "backend host %s is an ssh host: start the database there before the run", host)
	}
	argv := hb.tp.BackendStart
	bin, err := t.locate(spec, argv[0])
	if err != nil {
		return fmt.Errorf("driver: BACKEND_START: %w", err)
	}
	p, err := t.start(spec, hosts.Backend, "backend "+filepath.Base(argv[0]), append([]string{bin}, argv[1:]...))
	if err != nil {
		return err
	}
	addr := spec.Backend.TCP
	if addr == nil {
		addr = spec.Backend.UNIX
	}
	return p.Probe(ctx, *addr, BackendReadyTimeout)
}

// describe adds the hosts to the report: every host with its environment,
// and where each path's components ran.
func (hb *hostBed) describe(rep *hop.Report, backend Backend) {
	if hb == nil {
		return
	}
	rep.Hosts = hb.info
	for i := range rep.Paths {
		ph := &hop.PathHosts{Client: hb.on[roles.Client], Server: hb.server(backend)}
		if rep.Paths[i].Relay != hop.Direct {
			ph.Relay = hb.on[roles.Relay]
		}
		rep.Paths[i].Hosts = ph
	}
}

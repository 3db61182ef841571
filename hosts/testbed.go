package hosts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/internal/tailbuf"
)

// Errors a caller may test for with errors.Is.
var (
	// ErrUnreachable: an ssh host did not answer (refused, no route,
	// timeout, unknown name).
	ErrUnreachable = errors.New("host unreachable")
	// ErrAuth: an ssh host refused every key, or its host key is unknown.
	ErrAuth = errors.New("ssh authentication failed")
	// ErrNoBinary: a hoplat binary is not on the host and cannot be
	// shipped there.
	ErrNoBinary = errors.New("binary not found")
)

// Subnet is where netns hosts' addresses come from: the k-th netns host
// gets 10.77.0.k/24. It is used only inside the namespaces hoplat creates,
// so it cannot clash with the machine's own networks.
const Subnet = "10.77.0.0/24"

// Options tune Up. The zero value is valid.
type Options struct {
	// PID names the namespaces and temp dirs, hoplat-<PID>-…, so that a
	// later run can tell they are stale once that process is gone; 0 for
	// os.Getpid().
	PID int
	// TempDir is the parent of the local temp dir (ssh control sockets);
	// "" for os.TempDir(). Keep it short: a control socket's path must fit
	// in sun_path's 108 bytes (unix(7)).
	TempDir string
	// Binary returns the local file of hoplat's binary name built for
	// goos/goarch, which Testbed.Binary ships to ssh hosts; nil looks the
	// name up on PATH for this machine's own GOOS/GOARCH and fails for
	// any other.
	Binary func(name, goos, goarch string) (string, error)
	// SSHOptions and RemoteBin are TopologyFile's fields of the same names.
	SSHOptions []string
	RemoteBin  string // "" for ship
	// Steps is told each step (namespace made, binary shipped…) as it is
	// taken, on the goroutine of the call that takes it (Up, Binary,
	// Close); nil for none.
	Steps func(Step)
}

// Testbed is a set of hosts brought up for a run: namespaces made and
// joined, ssh hosts connected. It records everything it creates and
// removes it in Close, which the caller must always call (defer it right
// after Up); turn SIGINT and SIGTERM into a cancelled context
// (signal.NotifyContext) so that Close runs on Ctrl-C too.
type Testbed struct {
	opt   Options
	pid   int
	tmp   string // local temp dir: marker file, control sockets
	order []string
	hosts map[string]*host

	mu     sync.Mutex
	undo   []undoStep // run in reverse by Close
	closed bool
}

// undoStep is one thing Close undoes: what for its error, step for
// Options.Steps.
type undoStep struct {
	what string
	step Step
	fn   func(context.Context) error
}

// host is a Host brought up.
type host struct {
	Host
	ns   string // netns: the namespace's full name
	addr string
	via  *host    // ssh: the netns host the ssh client runs in
	opts []string // ssh: Options.SSHOptions

	once sync.Once // ssh: connect once
	conn *sshConn
	err  error
}

// Info describes a host for reports: the "hosts" array of
// hoplat.hopbench.v1.
type Info struct {
	Name    string `json:"name"`
	Kind    Kind   `json:"kind"`
	Address string `json:"address"`
}

// cleanupTimeout bounds Close: each step is a local ip command or one ssh
// round trip.
const cleanupTimeout = 30 * time.Second

// Up brings hs up: removes what runs killed earlier left behind (namespaces
// hoplat-<pid>-… and temp dirs whose creating process is gone), creates
// each netns host's namespace and joins them, and connects every ssh host
// reached from this machine. An ssh host with Via is connected on first use
// instead, since the server it names may be one the caller starts inside
// the namespaces Up made; call Connect to connect it earlier. On error Up
// removes what it made and returns an error naming the host and the step.
func Up(ctx context.Context, hs []Host, o Options) (*Testbed, error) {
	tb := &Testbed{opt: o, pid: o.PID, hosts: map[string]*host{}}
	if tb.pid == 0 {
		tb.pid = os.Getpid()
	}
	for _, h := range hs {
		if _, dup := tb.hosts[h.Name]; dup {
			return nil, fmt.Errorf("hosts: host %s given twice", h.Name)
		}
		if err := h.check(); err != nil {
			return nil, err
		}
		tb.hosts[h.Name] = &host{Host: h}
		tb.order = append(tb.order, h.Name)
	}
	for _, h := range tb.hosts {
		if h.Kind == SSH && h.Via != "" {
			v, ok := tb.hosts[h.Via]
			if !ok || v.Kind != NetNS {
				return nil, fmt.Errorf("hosts: ssh %s: via %q: want a netns host of this testbed", h.Name, h.Via)
			}
			h.via = v
		}
	}
	if err := tb.up(ctx); err != nil {
		if cerr := tb.Close(); cerr != nil {
			err = fmt.Errorf("%w (and cleaning up: %v)", err, cerr)
		}
		return nil, err
	}
	return tb, nil
}

// check reports a Host that ParseHost would not have returned.
func (h Host) check() error {
	switch {
	case !validHostName(h.Name) && h.Name != "local":
		return fmt.Errorf("hosts: host name %q: want a letter then up to 11 lower-case letters or digits", h.Name)
	case h.Kind == NetNS && !validHostName(h.Namespace):
		return fmt.Errorf("hosts: netns %s: namespace name %q: want a letter then up to 11 lower-case letters or digits", h.Name, h.Namespace)
	case h.Kind == SSH && (h.User == "" || h.Addr == "" || strings.HasPrefix(h.User, "-") || strings.HasPrefix(h.Addr, "-")):
		return fmt.Errorf("hosts: ssh %s: target %q: want user@host", h.Name, h.Target())
	case h.Kind != Local && h.Kind != NetNS && h.Kind != SSH:
		return fmt.Errorf("hosts: host %s: kind %q: want local, netns or ssh", h.Name, h.Kind)
	}
	return nil
}

func (tb *Testbed) up(ctx context.Context) error {
	if err := tb.makeTemp(); err != nil {
		return err
	}
	// What a killed run left is removed if it can be; if not (not root),
	// it is no reason to refuse a run that makes no namespaces.
	if err := cleanStale(ctx, tb); err != nil {
		tb.step(Step{Kind: StaleNotRemoved, Err: err})
	}
	if err := upNetNS(ctx, tb); err != nil {
		return err
	}
	for _, name := range tb.order {
		if h := tb.hosts[name]; h.Kind == SSH && h.via == nil {
			if _, err := tb.connect(ctx, h); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("hosts: up: %w", err)
	}
	return nil
}

// tempMarker names the file that marks a temp dir as this package's, so
// that stale-run cleanup never removes anything else named hoplat-….
const tempMarker = "hoplat-hosts"

func (tb *Testbed) makeTemp() error {
	dir, err := os.MkdirTemp(tb.opt.TempDir, "hoplat-"+strconv.Itoa(tb.pid)+"-ctl-")
	if err != nil {
		return fmt.Errorf("hosts: temp dir: %w", err)
	}
	tb.tmp = dir
	tb.push("remove "+dir, Step{Kind: CloseTempDir, Path: dir}, func(context.Context) error { return os.RemoveAll(dir) })
	if err := os.WriteFile(dir+"/"+tempMarker, nil, 0o600); err != nil {
		return fmt.Errorf("hosts: temp dir: %w", err)
	}
	return nil
}

func (tb *Testbed) push(what string, step Step, fn func(context.Context) error) {
	tb.mu.Lock()
	tb.undo = append(tb.undo, undoStep{what, step, fn})
	tb.mu.Unlock()
}

// Close stops every process still running and removes everything Up and
// Start made, newest first: processes, remote temp dirs, ssh connections,
// namespaces (and with them their veths and addresses), the local temp
// dir. It runs on a context of its own, since the caller's is often the one
// just cancelled. Close is idempotent.
func (tb *Testbed) Close() error {
	tb.mu.Lock()
	if tb.closed {
		tb.mu.Unlock()
		return nil
	}
	tb.closed = true
	steps := tb.undo
	tb.undo = nil
	tb.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	var errs []error
	for _, s := range slices.Backward(steps) {
		tb.step(s.step)
		if err := s.fn(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.what, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("hosts: close: %w", err)
	}
	return nil
}

func (tb *Testbed) host(name string) (*host, error) {
	h, ok := tb.hosts[name]
	if !ok {
		return nil, fmt.Errorf("hosts: no host %q in this testbed", name)
	}
	return h, nil
}

// Address is the address components on other hosts dial to reach name:
// 10.77.0.k for a netns host, the ssh target's address for an ssh host,
// 127.0.0.1 for this machine.
func (tb *Testbed) Address(name string) (string, error) {
	h, err := tb.host(name)
	if err != nil {
		return "", err
	}
	return h.addr, nil
}

// Namespace is a netns host's namespace name, for `ip netns exec`.
func (tb *Testbed) Namespace(name string) (string, error) {
	h, err := tb.host(name)
	if err != nil {
		return "", err
	}
	if h.Kind != NetNS {
		return "", fmt.Errorf("hosts: %s is %s, not a namespace", h, h.Kind)
	}
	return h.ns, nil
}

// Hosts describes every host, in the order given to Up.
func (tb *Testbed) Hosts() []Info {
	var out []Info
	for _, n := range tb.order {
		h := tb.hosts[n]
		out = append(out, Info{Name: h.Name, Kind: h.Kind, Address: h.addr})
	}
	return out
}

// Argv is the command line that runs argv on a local or netns host, for a
// caller that starts and owns the process itself: argv unchanged for local,
// `ip netns exec NS argv…` for netns. ip execs argv in place, so the
// process it starts has the PID the caller sees, and a CPU affinity set on
// it at fork carries over. Stop such processes before Close: Close deletes
// the namespaces and kills whatever still runs inside them. An ssh host
// has no such command line; use Start.
func (tb *Testbed) Argv(name string, argv []string) ([]string, error) {
	h, err := tb.host(name)
	if err != nil {
		return nil, err
	}
	switch h.Kind {
	case Local:
		return slices.Clone(argv), nil
	case NetNS:
		return netnsArgv(h.ns, argv), nil
	}
	return nil, fmt.Errorf("hosts: %s: an ssh host's processes are started with Start", h)
}

// Run runs argv on host name to completion and returns its stdout; the
// error carries the host, the command and its stderr.
func (tb *Testbed) Run(ctx context.Context, name string, argv ...string) ([]byte, error) {
	h, err := tb.host(name)
	if err != nil {
		return nil, err
	}
	var cmd *exec.Cmd
	if h.Kind == SSH {
		c, err := tb.connect(ctx, h)
		if err != nil {
			return nil, err
		}
		cmd = c.command(ctx, "cd "+shellQuote(c.dir)+" && "+shellJoin(argv))
	} else {
		full, _ := tb.Argv(name, argv)
		cmd = exec.CommandContext(ctx, full[0], full[1:]...)
	}
	stderr := tailbuf.New(2048)
	cmd.Stderr = stderr
	var out []byte
	locked(func() { out, err = cmd.Output() })
	if err != nil {
		return out, fmt.Errorf("hosts: %s: run %s: %w (stderr: %s)", h, shellJoin(argv), err, stderr)
	}
	return out, nil
}

// Dir is a temporary directory on host name for a component's files (UNIX
// socket paths, --hgrm and --stats files), removed by Close: the remote
// temp dir of an ssh host, this machine's for local and netns hosts, which
// share its file system.
func (tb *Testbed) Dir(ctx context.Context, name string) (string, error) {
	h, err := tb.host(name)
	if err != nil {
		return "", err
	}
	if h.Kind != SSH {
		return tb.tmp, nil
	}
	c, err := tb.connect(ctx, h)
	if err != nil {
		return "", err
	}
	return c.dir, nil
}

// ReadFile brings back the file at path on host name: a component's JSON,
// .hgrm or stats written there.
func (tb *Testbed) ReadFile(ctx context.Context, name, path string) ([]byte, error) {
	h, err := tb.host(name)
	if err != nil {
		return nil, err
	}
	if h.Kind != SSH {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("hosts: %s: %w", h, err)
		}
		return b, nil
	}
	return tb.Run(ctx, name, "cat", "--", path)
}

// Connect connects ssh host name now, if it is not connected yet.
func (tb *Testbed) Connect(ctx context.Context, name string) error {
	h, err := tb.host(name)
	if err != nil {
		return err
	}
	if h.Kind != SSH {
		return nil
	}
	_, err = tb.connect(ctx, h)
	return err
}

// Binary returns the path on host name of hoplat's binary (pongd,
// pingpong, hoprelay): for local and netns hosts, Options.Binary's file for
// this machine; for an ssh host, per RemoteBin: shipped into its temp dir,
// built for the GOOS/GOARCH its `uname -sm` reports (ship), found on its
// PATH (path), or in a directory there.
func (tb *Testbed) Binary(ctx context.Context, name, bin string) (string, error) {
	h, err := tb.host(name)
	if err != nil {
		return "", err
	}
	if h.Kind != SSH {
		p, err := tb.localBinary(bin, runtime.GOOS, runtime.GOARCH)
		if err != nil {
			return "", fmt.Errorf("hosts: %s: %w", h, err)
		}
		return p, nil
	}
	c, err := tb.connect(ctx, h)
	if err != nil {
		return "", err
	}
	return c.binary(ctx, tb, bin)
}

func (tb *Testbed) localBinary(bin, goos, goarch string) (string, error) {
	if tb.opt.Binary != nil {
		p, err := tb.opt.Binary(bin, goos, goarch)
		if err != nil {
			return "", fmt.Errorf("%s for %s/%s: %w: %w", bin, goos, goarch, ErrNoBinary, err)
		}
		return p, nil
	}
	if goos != runtime.GOOS || goarch != runtime.GOARCH {
		return "", fmt.Errorf("%s for %s/%s: %w (build it with GOOS=%s GOARCH=%s go build ./cmd/%s)",
			bin, goos, goarch, ErrNoBinary, goos, goarch, bin)
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%s: %w on PATH (run `make build`)", bin, ErrNoBinary)
	}
	return p, nil
}

package hosts

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/internal/await"
	"github.com/hoplat/hoplat/internal/tailbuf"
)

// An ssh host is driven with the system's OpenSSH client, so that the
// user's keys, agent and ~/.ssh/config apply as they do by hand. One master
// connection per host (ssh_config(5) ControlMaster, ControlPersist) carries
// every later command over its control socket, so a step costs one round
// trip, not a handshake. BatchMode=yes makes ssh fail instead of prompting
// for a password or a host key.

type sshConn struct {
	h      *host
	ctl    string // control socket
	dir    string // remote temp dir
	runID  string // HOPLAT_RUN, the remote temp dir's base name
	goos   string
	goarch string
	master int // the master's pid, from `ssh -O check`

	mu   sync.Mutex
	bins map[string]string
}

// connectTimeout bounds one connection attempt; a user's SSHOptions or
// ssh_config may set another (ssh uses the first value it obtains).
const connectTimeout = "ConnectTimeout=10"

func (tb *Testbed) connect(ctx context.Context, h *host) (*sshConn, error) {
	h.once.Do(func() {
		h.conn, h.err = tb.dial(ctx, h)
		if h.err != nil {
			h.err = fmt.Errorf("hosts: ssh %s (%s): %w", h.Name, h.dest(), h.err)
		}
	})
	return h.conn, h.err
}

// dest is the target as messages name it: user@host:port.
func (h *host) dest() string {
	if h.Port == 0 {
		return h.Target()
	}
	return h.Target() + ":" + strconv.Itoa(h.Port)
}

func (c *sshConn) baseArgs() []string {
	a := []string{"-o", "BatchMode=yes", "-o", "ControlPath=" + c.ctl}
	if c.h.Port != 0 {
		a = append(a, "-p", strconv.Itoa(c.h.Port))
	}
	a = append(a, c.h.opts...)
	return append(a, "-o", connectTimeout)
}

// sshArgv is the full command line of one ssh invocation: inside the via
// namespace when there is one.
func (c *sshConn) sshArgv(args ...string) []string {
	argv := append([]string{sshPath()}, args...)
	if c.h.via != nil {
		return netnsArgv(c.h.via.ns, argv)
	}
	return argv
}

func sshPath() string {
	if p, err := exec.LookPath("ssh"); err == nil {
		return p
	}
	return "ssh"
}

// command runs script through the master on the remote host. ssh hands
// the command to the user's login shell there, which may not be a POSIX
// one: it only has to exec /bin/sh with the script as one quoted word.
// ControlMaster=auto: should the master be gone (the connection dropped),
// the command connects by itself, so that stopping the remote processes
// still works.
func (c *sshConn) command(ctx context.Context, script string) *exec.Cmd {
	return c.ssh(ctx, append(c.baseArgs(), "-o", "ControlMaster=auto", "-T", "--", c.h.Target(), "exec /bin/sh -c "+shellQuote(script))...)
}

// ssh is one ssh process, in a process group of its own like every local
// component: a terminal's Ctrl-C goes to hopbench alone, which then stops
// the remote processes through sessions that are still up. One that runs
// to its end runs under locked, as its Pdeathsig requires.
func (c *sshConn) ssh(ctx context.Context, args ...string) *exec.Cmd {
	argv := c.sshArgv(args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	affinity.NewGroup(cmd)
	return cmd
}

// run runs script and returns its stdout.
func (c *sshConn) run(ctx context.Context, script string, stdin io.Reader) (string, error) {
	cmd := c.command(ctx, script)
	cmd.Stdin = stdin
	stderr := tailbuf.New(2048)
	cmd.Stderr = stderr
	var out []byte
	var err error
	locked(func() { out, err = cmd.Output() })
	if err != nil {
		return string(out), sshError(stderr.String(), err)
	}
	return string(out), nil
}

func (tb *Testbed) dial(ctx context.Context, h *host) (*sshConn, error) {
	h.opts = append([]string(nil), tb.opt.SSHOptions...)
	c := &sshConn{h: h, ctl: filepath.Join(tb.tmp, "cm-"+h.Name), bins: map[string]string{}}
	// -f -N: authenticate, then put the master in the background and
	// exit, which is the event that says the connection is up. Its
	// stderr goes to a file, not a pipe: the backgrounded master keeps
	// the descriptor, and a pipe would hold Wait until it exits.
	errFile, err := os.CreateTemp(tb.tmp, "master-*.err")
	if err != nil {
		return nil, err
	}
	defer os.Remove(errFile.Name())
	defer errFile.Close()
	cmd := c.ssh(ctx, append(c.baseArgs(), "-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-N", "-f", "--", h.Target())...)
	cmd.Stderr = errFile
	tb.step(Step{Kind: SSHConnecting, Host: h.Name, Dest: h.dest()})
	locked(func() { err = cmd.Run() })
	if err != nil {
		msg, _ := os.ReadFile(errFile.Name())
		return nil, sshError(string(msg), err)
	}
	tb.push("close ssh "+h.Name, Step{Kind: CloseSSH, Host: h.Name}, func(ctx context.Context) error { return c.closeMaster(ctx) })
	if err := c.checkMaster(ctx); err != nil {
		return nil, err
	}
	if err := c.setup(ctx, tb); err != nil {
		return nil, err
	}
	tb.push("remove "+h.Name+":"+c.dir, Step{Kind: CloseRemoteDir, Host: h.Name, Path: c.dir}, func(ctx context.Context) error { return c.removeDir(ctx) })
	tb.step(Step{Kind: SSHReady, Host: h.Name, GOOS: c.goos, GOARCH: c.goarch, Path: c.dir})
	return c, nil
}

var masterPID = regexp.MustCompile(`\(pid=(\d+)\)`)

func (c *sshConn) checkMaster(ctx context.Context) error {
	var out []byte
	var err error
	locked(func() {
		out, err = c.ssh(ctx, append(c.baseArgs(), "-O", "check", "--", c.h.Target())...).CombinedOutput()
	})
	if err != nil {
		return fmt.Errorf("control master: %s: %w", strings.TrimSpace(string(out)), err)
	}
	if m := masterPID.FindSubmatch(out); m != nil {
		c.master, _ = strconv.Atoi(string(m[1]))
	}
	return nil
}

// origin tells this machine's runs from others' in a shared remote /tmp.
func origin() string {
	if b, err := os.ReadFile("/etc/machine-id"); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b))
	}
	h, _ := os.Hostname()
	return h
}

// setup learns the remote platform, makes the remote temp dir (marked with
// this machine's origin at once, so that no crash leaves one unmarked) and
// removes what killed runs from this machine left there. One script, one
// round trip: it prints `uname -sm`, one line per such run's dir, then the
// new dir.
func (c *sshConn) setup(ctx context.Context, tb *Testbed) error {
	org := origin()
	list := `uname -sm || exit 1
for d in /tmp/hoplat-*-run-*; do
  [ -f "$d/origin" ] && [ "$(cat "$d/origin")" = ` + shellQuote(org) + ` ] && echo "stale $d"
done
d=$(mktemp -d /tmp/hoplat-` + strconv.Itoa(tb.pid) + `-run-XXXXXX) && echo ` + shellQuote(org) + ` > "$d/origin" && echo "$d"`
	out, err := c.run(ctx, list, nil)
	if err != nil {
		return fmt.Errorf("set up: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		return fmt.Errorf("set up: unexpected output %q", out)
	}
	if c.goos, c.goarch, err = platform(lines[0]); err != nil {
		return err
	}
	c.dir = strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(c.dir, "/tmp/hoplat-") {
		return fmt.Errorf("set up: mktemp gave %q", c.dir)
	}
	c.runID = filepath.Base(c.dir)
	for _, l := range lines[1 : len(lines)-1] {
		d, ok := strings.CutPrefix(l, "stale ")
		if !ok {
			continue
		}
		if pid, ok := creatorPID(filepath.Base(d), "-"); ok && !pidAlive(pid) {
			if _, err := c.run(ctx, killScript(d), nil); err != nil {
				return fmt.Errorf("remove stale %s: %w", d, err)
			}
			tb.step(Step{Kind: SSHStaleRemoved, Host: c.h.Name, Path: d})
		}
	}
	return nil
}

// killScript kills every process a run started in dir that still runs —
// recorded in dir/pids, and still carrying that run's HOPLAT_RUN — then
// removes dir.
func killScript(dir string) string {
	q := shellQuote(dir)
	return `for p in $(cat ` + q + `/pids 2>/dev/null); do
  ` + signalScript("KILL", "$p", filepath.Base(dir)) + `
done
rm -rf ` + q
}

// signalScript sends sig to process pid and its group if it is still the
// process run started: its environment (proc(5), /proc/PID/environ) holds
// HOPLAT_RUN=run, so a PID the system has since given to another process
// is left alone. Without a procfs (the BSDs, macOS) it cannot tell, and
// signals.
func signalScript(sig, pid, run string) string {
	marker := shellQuote("HOPLAT_RUN=" + run)
	return `if [ ! -d /proc/self ] || tr '\0' '\n' < /proc/` + pid + `/environ 2>/dev/null | grep -qx ` + marker +
		`; then kill -` + sig + ` -- -` + pid + ` 2>/dev/null || kill -` + sig + ` ` + pid + ` 2>/dev/null; fi; true`
}

func (c *sshConn) removeDir(ctx context.Context) error {
	_, err := c.run(ctx, killScript(c.dir), nil)
	return err
}

func (c *sshConn) closeMaster(ctx context.Context) error {
	var out []byte
	var err error
	locked(func() {
		out, err = c.ssh(ctx, append(c.baseArgs(), "-O", "exit", "--", c.h.Target())...).CombinedOutput()
	})
	// The master exits after it has answered; it is init's child, so
	// there is nothing to wait on but its PID going away.
	gone := func() bool { return c.master <= 0 || !pidAlive(c.master) }
	wait, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if await.Poll(wait, nil, 10*time.Millisecond, gone) != nil {
		// It did not answer: it is this process's grandchild (ssh -f
		// forked it), so end it by PID.
		KillGroup(c.master)
		return fmt.Errorf("ssh -O exit: %s: %v (killed pid %d)", strings.TrimSpace(string(out)), err, c.master)
	}
	return nil
}

// exitMaster tells a stale master to exit through its control socket.
func exitMaster(ctx context.Context, sock string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	exec.CommandContext(ctx, sshPath(), "-o", "ControlPath="+sock, "-O", "exit", "stale").Run()
}

// platform reads `uname -sm` as GOOS and GOARCH.
func platform(uname string) (goos, goarch string, err error) {
	f := strings.Fields(uname)
	if len(f) != 2 {
		return "", "", fmt.Errorf("uname -sm: %q", uname)
	}
	goos = strings.ToLower(f[0])
	switch goos {
	case "linux", "darwin", "freebsd", "openbsd", "netbsd":
	default:
		return "", "", fmt.Errorf("uname -sm: system %q: hoplat runs on Linux and the BSDs", f[0])
	}
	switch f[1] {
	case "x86_64", "amd64":
		goarch = "amd64"
	case "aarch64", "arm64":
		goarch = "arm64"
	case "i386", "i486", "i586", "i686":
		goarch = "386"
	case "armv6l", "armv7l", "armv7", "arm":
		goarch = "arm"
	case "ppc64le", "s390x", "riscv64", "loong64":
		goarch = f[1]
	default:
		return "", "", fmt.Errorf("uname -sm: machine %q: no GOARCH for it", f[1])
	}
	return goos, goarch, nil
}

// sshError says why ssh failed in the user's terms; ssh exits 255 for
// its own errors and with the remote command's status otherwise (ssh(1),
// EXIT STATUS).
func sshError(stderr string, err error) error {
	msg := strings.TrimSpace(stderr)
	low := strings.ToLower(msg)
	var exit *exec.ExitError
	own := errors.As(err, &exit) && exit.ExitCode() == 255
	switch {
	case own && strings.Contains(low, "permission denied"):
		return fmt.Errorf("%w: %s (ssh runs in BatchMode: load a key into ssh-agent, or give -i KEY in SSH_OPTIONS)", ErrAuth, msg)
	case own && strings.Contains(low, "host key verification failed"):
		return fmt.Errorf("%w: host key not known (ssh runs in BatchMode and never asks: connect once by hand to accept it): %s", ErrAuth, msg)
	case own && (strings.Contains(low, "connection refused") || strings.Contains(low, "no route to host") ||
		strings.Contains(low, "timed out") || strings.Contains(low, "could not resolve") ||
		strings.Contains(low, "network is unreachable") || strings.Contains(low, "connection closed")):
		return fmt.Errorf("%w: %s", ErrUnreachable, msg)
	case msg == "":
		return err
	}
	return fmt.Errorf("%w: %s", err, strings.ReplaceAll(msg, "\n", " | "))
}

func (c *sshConn) binary(ctx context.Context, tb *Testbed, bin string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.bins[bin]; ok {
		return p, nil
	}
	fail := func(format string, args ...any) (string, error) {
		return "", fmt.Errorf("hosts: ssh %s: %s: %w", c.h.Name, bin, fmt.Errorf(format, args...))
	}
	var p string
	switch mode := tb.opt.RemoteBin; {
	case mode == "path":
		out, err := c.run(ctx, "command -v "+shellQuote(bin), nil)
		if p = strings.TrimSpace(out); err != nil || p == "" {
			return fail("%w on its PATH (install hoplat there, or REMOTE_BIN=ship)", ErrNoBinary)
		}
	case strings.HasPrefix(mode, "/"):
		p = filepath.Join(mode, bin)
		if _, err := c.run(ctx, "test -x "+shellQuote(p), nil); err != nil {
			return fail("%w: no executable %s there", ErrNoBinary, p)
		}
	default:
		local, err := tb.localBinary(bin, c.goos, c.goarch)
		if err != nil {
			return fail("%w", err)
		}
		f, err := os.Open(local)
		if err != nil {
			return fail("%w: %v", ErrNoBinary, err)
		}
		defer f.Close()
		p = c.dir + "/" + bin
		part := shellQuote(p + ".part")
		if _, err := c.run(ctx, "cat > "+part+" && chmod 755 "+part+" && mv "+part+" "+shellQuote(p), f); err != nil {
			return fail("ship %s: %w", local, err)
		}
		tb.step(Step{Kind: BinaryShipped, Host: c.h.Name, Local: local, Path: p})
	}
	c.bins[bin] = p
	return p, nil
}

// pidLine is the first line a remote component's wrapper prints.
const pidLine = "hoplat-pid "

// startSSH starts c on the remote host through a small POSIX sh wrapper:
// it records its PID in the run's pids file, prints it, marks the
// environment with HOPLAT_RUN, and execs argv, so that the PID printed is
// the component's own (and, sshd having made the session with setsid(2),
// its process group's). The session's stdout after that line is the
// component's, readiness lines included.
func (tb *Testbed) startSSH(ctx context.Context, p *Process, c Command) error {
	conn, err := tb.connect(ctx, p.h)
	if err != nil {
		return err
	}
	inner := `echo $$ >> ` + shellQuote(conn.dir+"/pids") + ` && echo "` + pidLine + `$$" && HOPLAT_RUN=` + shellQuote(conn.runID) +
		` && export HOPLAT_RUN && cd ` + shellQuote(conn.dir) + ` && exec ` + shellJoin(c.Argv)
	cmd := conn.command(context.Background(), inner)
	p.cmd = cmd
	cmd.Stderr = p.stderrWriter(c)
	stdout := p.stdoutWriter(c)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("hosts: ssh %s: start %s: %w", p.h.Name, p.Name, err)
	}
	p.stdout = out
	pidc := make(chan int, 1)
	// The owner reads the PID line, copies the rest of stdout, and waits.
	err = p.own(affinity.CPUSet{}, 0, func() {
		br := bufio.NewReader(out)
		line, _ := br.ReadString('\n')
		pid, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, pidLine)))
		pidc <- pid
		io.Copy(stdout, br)
	})
	if err != nil {
		return fmt.Errorf("hosts: ssh %s: start %s: %w", p.h.Name, p.Name, err)
	}
	select {
	case pid := <-pidc:
		if pid > 0 {
			p.pid = pid
			return nil
		}
		<-p.done
		return fmt.Errorf("hosts: ssh %s: start %s: %w", p.h.Name, p.Name, sshError(p.stderr.String(), p.waitErr))
	case <-ctx.Done():
		cmd.Process.Kill()
		out.Close()
		<-p.done
		// The wrapper may have recorded its PID: Close's killScript
		// finds it in the pids file.
		return fmt.Errorf("hosts: ssh %s: start %s: %w", p.h.Name, p.Name, ctx.Err())
	}
}

// stopSSH signals the remote process group by PID over the master
// connection; the session, and with it the local ssh, ends when it exits.
// A session that already ended (the connection dropped) may have left the
// process running: it is sent SIGKILL, if it is still the run's.
func (tb *Testbed) stopSSH(p *Process) error {
	c := p.h.conn
	signal := func(sig string) error {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		_, err := c.run(ctx, signalScript(sig, strconv.Itoa(p.pid), c.runID), nil)
		return err
	}
	select {
	case <-p.done:
		return signal("KILL")
	default:
	}
	err := signal("TERM")
	timer := time.NewTimer(StopGrace)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
	}
	if kerr := signal("KILL"); kerr != nil && err == nil {
		err = kerr
	}
	timer.Reset(StopGrace)
	select {
	case <-p.done:
		return nil
	case <-timer.C:
		// The connection hangs: end the local session. The master holds
		// the session's end of the stdout pipe (a multiplexed client
		// passes its descriptors to it, ssh(1) -O), so close ours too.
		p.cmd.Process.Kill()
		p.stdout.Close()
		<-p.done
	}
	if err != nil {
		return fmt.Errorf("hosts: ssh %s: stop %s (pid %d): %w", p.h.Name, p.Name, p.pid, err)
	}
	return nil
}

// locked runs fn, which starts a command and waits for it to end, on an
// OS thread locked for the while. A command made by ssh has a Pdeathsig
// (affinity.NewGroup), which the kernel ties to the thread that forks it
// (prctl(2), PR_SET_PDEATHSIG), and the runtime ends a thread when a
// goroutine that locked it returns, as every Process's owner does: forked
// from a thread the runtime hands on, the command could get SIGTERM midway.
func locked(fn func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fn()
}

package hosts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hoplat/hoplat/internal/locate"
)

// Namespaces are made and joined with iproute2's ip(8), as a user would by
// hand: `ip netns add` bind-mounts the new namespace at /run/netns/NAME
// (ip-netns(8)), so it outlives the commands that use it and a later run
// can find it by name; `ip link add … netns NS type veth peer … netns NS2`
// creates each end of the pair directly inside its namespace, so no
// interface ever appears in this machine's own namespace and two runs
// never clash on a name there.

const (
	ifName     = "hoplat0" // every netns host's link to the others
	bridgeName = "br0"
	nsPrefix   = "hoplat-"
)

// bridgeNS is the namespace that holds the bridge when three or more netns
// hosts are joined; host names start with a letter, so it cannot be one.
func bridgeNS(pid int) string { return nsPrefix + strconv.Itoa(pid) + "--bridge" }

func hostNS(pid int, name string) string { return nsPrefix + strconv.Itoa(pid) + "-" + name }

var ipPath = func() (string, error) {
	p, err := locate.Find("ip")
	if err != nil {
		return "", fmt.Errorf("hosts: %w (install iproute2, or run make deps)", err)
	}
	return p, nil
}

func netnsArgv(ns string, argv []string) []string {
	ip, err := ipPath()
	if err != nil {
		ip = "ip"
	}
	return append([]string{ip, "netns", "exec", ns}, argv...)
}

// ip runs ip(8) with args; its error names the step in the words of
// host's error, with ip's own message.
func ip(ctx context.Context, args ...string) error {
	path, err := ipPath()
	if err != nil {
		return fmt.Errorf("%w (install iproute2)", err)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return ipError(stderr.String(), err)
	}
	return nil
}

// ipError turns ip's stderr into a short error: "RTNETLINK answers:
// Operation not permitted" becomes "operation not permitted (need root)",
// wrapping os.ErrPermission.
func ipError(stderr string, err error) error {
	msg := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		// The last line is the cause; earlier ones repeat the context.
		msg = msg[i+1:]
	}
	msg = strings.TrimPrefix(msg, "RTNETLINK answers: ")
	if msg == "" {
		msg = err.Error()
	}
	if strings.Contains(strings.ToLower(msg), "operation not permitted") || strings.Contains(strings.ToLower(msg), "permission denied") {
		return fmt.Errorf("%s (need root): %w", lowerFirst(msg), os.ErrPermission)
	}
	return errors.New(lowerFirst(msg))
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func upNetNS(ctx context.Context, tb *Testbed) error {
	var ns []*host
	for _, name := range tb.order {
		if h := tb.hosts[name]; h.Kind == NetNS {
			ns = append(ns, h)
		} else if h.Kind == Local {
			h.addr = "127.0.0.1"
		} else {
			h.addr = h.Addr
		}
	}
	if len(ns) > 253 {
		return fmt.Errorf("hosts: %d netns hosts: %s holds 253", len(ns), Subnet)
	}
	step := func(h *host, what string, args ...string) error {
		if err := ip(ctx, args...); err != nil {
			return fmt.Errorf("hosts: netns %s: %s: %w", h.Name, what, err)
		}
		return nil
	}
	add := func(h *host, name string) error {
		if err := step(h, "add namespace "+name, "netns", "add", name); err != nil {
			return err
		}
		tb.step(Step{Kind: NetNSAdded, Host: h.Name, Namespace: name})
		tb.push("delete netns "+name, Step{Kind: CloseNetNS, Namespace: name}, func(ctx context.Context) error { return deleteNS(ctx, name) })
		return step(h, "loopback up", "-n", name, "link", "set", "lo", "up")
	}
	for i, h := range ns {
		h.ns = hostNS(tb.pid, h.Namespace)
		h.addr = "10.77.0." + strconv.Itoa(i+1)
		if err := add(h, h.ns); err != nil {
			return err
		}
	}
	switch {
	case len(ns) == 1:
		// Alone, it talks only to itself: its address goes on loopback.
		if err := step(ns[0], "add address", "-n", ns[0].ns, "addr", "add", ns[0].addr+"/32", "dev", "lo"); err != nil {
			return err
		}
		return nil
	case len(ns) == 2:
		a, b := ns[0], ns[1]
		if err := step(a, "add veth to "+b.Name, "link", "add", ifName, "netns", a.ns, "type", "veth", "peer", "name", ifName, "netns", b.ns); err != nil {
			return err
		}
	case len(ns) > 2:
		br := &host{Host: Host{Name: "bridge"}, ns: bridgeNS(tb.pid)}
		if err := add(br, br.ns); err != nil {
			return err
		}
		if err := step(br, "add bridge", "-n", br.ns, "link", "add", bridgeName, "type", "bridge"); err != nil {
			return err
		}
		if err := step(br, "bridge up", "-n", br.ns, "link", "set", bridgeName, "up"); err != nil {
			return err
		}
		for i, h := range ns {
			port := "p" + strconv.Itoa(i+1)
			if err := step(h, "add veth to bridge", "link", "add", ifName, "netns", h.ns, "type", "veth", "peer", "name", port, "netns", br.ns); err != nil {
				return err
			}
			if err := step(h, "attach veth to bridge", "-n", br.ns, "link", "set", port, "master", bridgeName, "up"); err != nil {
				return err
			}
		}
	}
	for _, h := range ns {
		if err := step(h, "add address "+h.addr, "-n", h.ns, "addr", "add", h.addr+"/24", "dev", ifName); err != nil {
			return err
		}
		if err := step(h, "veth up", "-n", h.ns, "link", "set", ifName, "up"); err != nil {
			return err
		}
		tb.step(Step{Kind: AddressSet, Host: h.Name, Address: h.addr, Interface: ifName, Namespace: h.ns})
	}
	return nil
}

// deleteNS kills what still runs inside the namespace (only hoplat's own
// processes run in a hoplat-… namespace) and deletes it; the veth ends and
// addresses inside go with it once no process holds it (ip-netns(8)).
func deleteNS(ctx context.Context, name string) error {
	path, err := ipPath()
	if err != nil {
		return err
	}
	out, _ := exec.CommandContext(ctx, path, "netns", "pids", name).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if err := ip(ctx, "netns", "del", name); err != nil {
		return fmt.Errorf("netns %s: delete: %w", name, err)
	}
	return nil
}

// staleNamespaces lists namespaces named hoplat-<pid>-… whose pid is not
// alive.
func staleNamespaces(ctx context.Context) ([]string, error) {
	path, err := ipPath()
	if err != nil {
		return nil, nil // no ip: nothing can have made a namespace
	}
	out, err := exec.CommandContext(ctx, path, "netns", "list").Output()
	if err != nil {
		return nil, fmt.Errorf("hosts: ip netns list: %w", err)
	}
	var stale []string
	for _, line := range strings.Split(string(out), "\n") {
		// "NAME" or "NAME (id: N)"
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		if pid, ok := creatorPID(name, "-"); ok && !pidAlive(pid) {
			stale = append(stale, name)
		}
	}
	return stale, nil
}

// creatorPID reads the pid from hoplat-<pid><sep>….
func creatorPID(name, sep string) (int, bool) {
	rest, ok := strings.CutPrefix(name, nsPrefix)
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, sep)
	pid, err := strconv.Atoi(num)
	if !ok || err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

func cleanStale(ctx context.Context, tb *Testbed) error {
	stale, err := staleNamespaces(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range stale {
		if err := deleteNS(ctx, name); err != nil {
			errs = append(errs, fmt.Errorf("hosts: remove stale %w", err))
			continue
		}
		tb.step(Step{Kind: StaleNetNSRemoved, Namespace: name})
	}
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(tb.tmp), nsPrefix+"*-ctl-*"))
	for _, d := range dirs {
		pid, ok := creatorPID(filepath.Base(d), "-")
		if _, err := os.Stat(filepath.Join(d, tempMarker)); err != nil || !ok || pidAlive(pid) {
			continue
		}
		// A killed run's ssh masters persist (ControlPersist=yes) until
		// told to exit through their sockets.
		socks, _ := filepath.Glob(filepath.Join(d, "cm-*"))
		for _, s := range socks {
			exitMaster(ctx, s)
		}
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, fmt.Errorf("hosts: remove stale %w", err))
			continue
		}
		tb.step(Step{Kind: StaleTempDirRemoved, Path: d})
	}
	return errors.Join(errs...)
}

// pidAlive reports whether a process pid exists (kill(2) with signal 0:
// EPERM means it exists but is not ours) and has not exited: a zombie,
// state Z in /proc/PID/stat (proc(5)), waits only for its parent to reap
// it, which for a daemon such as an ssh master is init, in its own time.
func pidAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command name in parentheses, which may itself
	// hold ") ".
	if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) {
		return st[i+2] != 'Z'
	}
	return true
}

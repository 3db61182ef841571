//go:build linux

package hosts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/porttest"
)

// sshKeys makes a temp host key and a temp user key for root, and the
// configuration of an OpenSSH server at addr:2222 that trusts it; it
// returns the directory and the ssh options that reach that server.
func sshKeys(t *testing.T, addr string) (string, []string) {
	t.Helper()
	keygen := peer.Require(t, "ssh-keygen")
	peer.Require(t, "ssh")
	dir := t.TempDir()
	for _, k := range []string{"host", "user", "other"} {
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "user.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "root.keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(filepath.Join(dir, "host.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte("["+addr+"]:2222 "+string(hostPub)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`Port 2222
ListenAddress %s
HostKey %s/host
AuthorizedKeysFile %s/%%u.keys
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
`, addr, dir, dir)
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := []string{"-F", "/dev/null", "-i", filepath.Join(dir, "user"), "-o", "IdentitiesOnly=yes",
		"-o", "UserKnownHostsFile=" + filepath.Join(dir, "known_hosts"), "-o", "StrictHostKeyChecking=yes"}
	return dir, opts
}

// sshd starts the server sshKeys configured in dir on host, as this test's
// child (-D: no daemon), and waits until it listens on addr.
func sshd(t *testing.T, ctx context.Context, tb *Testbed, host, addr, dir string) *Process {
	t.Helper()
	bin := peer.Require(t, "sshd")
	// sshd's privilege separation needs its empty directory (sshd(8),
	// FILES), which the package's service unit creates at boot.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	log := newLines()
	p, err := tb.Start(ctx, host, Command{Name: "sshd", Argv: []string{bin, "-D", "-e", "-f", filepath.Join(dir, "sshd_config")}, Stderr: log})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.await(ctx, "Server listening on "+addr+" port 2222", 10*time.Second); err != nil {
		t.Fatalf("sshd: %v (stderr: %s)", err, p.Stderr())
	}
	return p
}

func sshHosts() []Host {
	return append(twoNamespaces(),
		Host{Name: "remote", Kind: SSH, User: "root", Addr: "10.77.0.2", Port: 2222, Via: "app", Spec: "ssh://root@10.77.0.2:2222"},
		Host{Name: "closed", Kind: SSH, User: "root", Addr: "10.77.0.2", Port: 2223, Via: "app", Spec: "ssh://root@10.77.0.2:2223"},
		Host{Name: "stranger", Kind: SSH, User: "nobody", Addr: "10.77.0.2", Port: 2222, Via: "app", Spec: "ssh://nobody@10.77.0.2:2222"},
	)
}

// (2) An ssh host that is an OpenSSH server inside a namespace: pongd
// shipped there, started and stopped by PID, reached by pingpong.
func TestSSHHost(t *testing.T) {
	ctx := context.Background()
	dir, opts := sshKeys(t, "10.77.0.2")
	o := Options{SSHOptions: opts, Binary: func(name, goos, goarch string) (string, error) {
		if name == "missing" {
			return "", os.ErrNotExist
		}
		return peer.Hoplat(t, name), nil
	}}
	// The ssh hosts are reached through app, and their server runs in db:
	// Up makes both, then the first use of each ssh host connects it.
	tb := upOrSkip(t, ctx, sshHosts(), o)
	d := sshd(t, ctx, tb, "db", "10.77.0.2", dir)

	if err := tb.Connect(ctx, "closed"); !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "ssh closed (root@10.77.0.2:2223)") {
		t.Errorf("closed port: %v", err)
	}
	if err := tb.Connect(ctx, "stranger"); !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "Permission denied") {
		t.Errorf("unknown key: %v", err)
	}
	stale, leftover := staleRun(t)
	if err := tb.Connect(ctx, "remote"); err != nil {
		t.Fatal(err)
	}
	// Connecting removed what a killed run from this machine left there.
	if err := leftover.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("a killed run's remote process: %v, want killed", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a killed run's remote dir %s: %v", stale, err)
	}
	if _, err := tb.Binary(ctx, "remote", "missing"); !errors.Is(err, ErrNoBinary) || !strings.Contains(err.Error(), "ssh remote: missing") {
		t.Errorf("missing binary: %v", err)
	}
	bin, err := tb.Binary(ctx, "remote", "pongd")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(bin, "/tmp/hoplat-"+strconv.Itoa(os.Getpid())+"-run-") {
		t.Errorf("shipped to %s", bin)
	}
	p, target := startPongd(t, ctx, tb, "remote", bin, "10.77.0.2")
	// The PID is the remote pongd's own (the "remote" is this machine):
	// the shipped binary, in sshd's namespace.
	if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.PID())); exe != bin {
		t.Errorf("pid %d runs %q, want %s", p.PID(), exe, bin)
	}
	if netnsOf(t, p.PID()) != netnsOf(t, d.PID()) {
		t.Error("remote pongd is not in sshd's namespace")
	}
	pingpongOn(t, ctx, tb, "app", target)
	if out, err := tb.Run(ctx, "remote", "uname", "-s"); err != nil || strings.TrimSpace(string(out)) != "Linux" {
		t.Errorf("run uname: %q %v", out, err)
	}
	// Its environment is read there, and here it is this machine's.
	if e, err := tb.Env(ctx, "remote"); err != nil || e.OS != runtime.GOOS || e.Arch != runtime.GOARCH || e.Cores < 1 || e.Kernel == "" {
		t.Errorf("remote env %+v %v", e, err)
	} else if local, err := tb.Env(ctx, "app"); err != nil || !reflect.DeepEqual(local, e) {
		t.Errorf("app's env %+v %v, remote's %+v", local, err, e)
	}
	// A file a component writes there comes back byte for byte.
	rdir, err := tb.Dir(ctx, "remote")
	if err != nil || !strings.HasPrefix(bin, rdir+"/") {
		t.Errorf("remote dir %q %v, binary in %s", rdir, err, bin)
	}
	payload := "{\"schema\": \"x\"}\n\x00\xff"
	if _, err := tb.Run(ctx, "remote", "sh", "-c", `printf '{"schema": "x"}\n\000\377' > out.json`); err != nil {
		t.Fatal(err)
	}
	if b, err := tb.ReadFile(ctx, "remote", rdir+"/out.json"); err != nil || string(b) != payload {
		t.Errorf("ReadFile: %q %v", b, err)
	}
	if _, err := tb.ReadFile(ctx, "remote", rdir+"/none"); err == nil || !strings.Contains(err.Error(), "No such file") {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
	if err := p.Stop(); err != nil {
		t.Error(err)
	}
	waitGone(t, p.PID())

	// A connection that drops (here: its master killed) leaves the remote
	// process running, without a terminal to hang up; Stop connects again
	// and ends it.
	p, _ = startPongd(t, ctx, tb, "remote", bin, "10.77.0.2")
	KillGroup(tb.hosts["remote"].conn.master)
	<-p.Done()
	if !pidAlive(p.PID()) {
		t.Fatal("remote pongd ended with its session: this test shows nothing")
	}
	if err := p.Stop(); err != nil {
		t.Error(err)
	}
	waitGone(t, p.PID())
}

// An ssh host that does not answer fails Up, naming the host, and Up
// leaves nothing behind. The port is one just closed on loopback.
func TestSSHUnreachable(t *testing.T) {
	peer.Require(t, "ssh")
	port := porttest.Closed(t)
	tmp := t.TempDir()
	h, err := ParseHost("gone", fmt.Sprintf("ssh://nobody@127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Up(context.Background(), []Host{h}, Options{TempDir: tmp, SSHOptions: []string{"-F", "/dev/null"}})
	if tb != nil || !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), fmt.Sprintf("ssh gone (nobody@127.0.0.1:%d)", port)) {
		t.Errorf("Up: %v %v", tb, err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("Up left %v", ents)
	}
}

// A killed run's remote processes are killed by the next run only if they
// still carry that run's HOPLAT_RUN: a recycled PID is left alone. The
// script runs here under sh, as it does on the remote host.
func TestKillScript(t *testing.T) {
	dir, err := os.MkdirTemp("", "hoplat-1-run-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	start := func(env string) *exec.Cmd {
		cmd := exec.Command("sleep", "600")
		cmd.Env = append(os.Environ(), env)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	ours := start("HOPLAT_RUN=" + filepath.Base(dir))
	other := start("HOPLAT_RUN=someone-else")
	defer func() { other.Process.Kill(); other.Wait() }()
	pids := fmt.Sprintf("%d\n%d\n", ours.Process.Pid, other.Process.Pid)
	if err := os.WriteFile(filepath.Join(dir, "pids"), []byte(pids), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-c", killScript(dir)).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if err := ours.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the run's process: %v, want killed", err)
	}
	if !pidAlive(other.Process.Pid) {
		t.Error("a process of another run was killed")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left: %v", dir, err)
	}
}

// staleRun leaves, on the "remote" host (this machine), what a run from
// here that was killed leaves: a temp dir named after its dead PID, with
// its origin and pids files, and a process of it still running.
func staleRun(t *testing.T) (string, *exec.Cmd) {
	t.Helper()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/tmp", fmt.Sprintf("hoplat-%d-run-", gone.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cmd := exec.Command("sleep", "600")
	cmd.Env = append(os.Environ(), "HOPLAT_RUN="+filepath.Base(dir))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if err := os.WriteFile(filepath.Join(dir, "origin"), []byte(origin()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, cmd
}

package main

// Integration tests of topology runs: hopbench brings up network
// namespaces (which needs root), places the components in them, and
// removes everything at the end, Ctrl-C included.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/analysis/hop/hoptest"
	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/porttest"
)

// needNetns skips (or fails, under HOPLAT_REQUIRE_INTEGRATION) a test that
// creates namespaces where it cannot.
func needNetns(t *testing.T) {
	t.Helper()
	peer.Root(t, "netns topologies need root: ip netns add is privileged")
	peer.Require(t, "ip")
}

// appDB is MXS-1515's two hosts as namespaces: the client and the relays
// in app, pongd in db.
const appDB = `HOST_APP="netns:app"
HOST_DB="netns:db"
CLIENT_HOST=app
RELAY_HOST=app
SERVER_HOST=db
`

// topologyLeft checks that hopbench run pid left no namespace, no veth in
// this namespace, and no process that inherited the TMPDIR it was given.
func topologyLeft(t *testing.T, pid int, tmp string) {
	t.Helper()
	prefix := "hoplat-" + strconv.Itoa(pid) + "-"
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, prefix) {
			t.Errorf("namespace left behind: %s", line)
		}
	}
	out, err = exec.Command("ip", "-o", "link", "show", "type", "veth").Output()
	if err != nil {
		t.Fatalf("ip link: %v", err)
	}
	if bytes.Contains(out, []byte("hoplat")) {
		t.Errorf("veth left behind: %s", out)
	}
	// Every component inherits hopbench's environment, ip netns exec
	// included, whatever namespace it ended up in.
	mark := []byte("TMPDIR=" + tmp + "\x00")
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if err == nil && bytes.Contains(env, mark) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
			t.Errorf("process %s left running: %s", p.Name(), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
}

func TestIntegrationTopologyNetns(t *testing.T) {
	needNetns(t)
	file := confFile(t, t.TempDir(), "mxs.conf", appDB)
	cmd, tmp := hopbench(t, "--topology", file, "--placement", "same-core", "--paths", "direct,epoll", "--transports", "tcp",
		"--runs", "2", "--discard", "0", "--time", "300ms", "--format", "json", "-q")
	rep := reportOf(t, cmd)
	if len(rep.Hosts) != 2 || rep.Hosts[0].Name != "app" || rep.Hosts[0].Address != "10.77.0.1" ||
		rep.Hosts[1].Name != "db" || rep.Hosts[1].Kind != "netns" || rep.Hosts[1].Address != "10.77.0.2" || rep.Hosts[1].Env == nil {
		t.Errorf("hosts %+v", rep.Hosts)
	}
	if len(rep.Paths) != 2 {
		t.Fatalf("paths %+v", rep.Paths)
	}
	for _, p := range rep.Paths {
		if p.LatencyUs.P50 <= 0 || p.Errors != 0 || p.Failed != 0 {
			t.Errorf("%s: p50 %v errors %d failed %d %+v", p.Name, p.LatencyUs.P50, p.Errors, p.Failed, p.Rounds)
		}
		h := p.Hosts
		if h == nil || h.Client != "app" || h.Server != "db" || (h.Relay == "app") == (p.Relay == hop.Direct) {
			t.Errorf("%s: hosts %+v", p.Name, h)
		}
	}
	noneLeft(t, tmp)
	topologyLeft(t, cmd.Process.Pid, tmp)
}

// Ctrl-C mid-run: every component stopped, the namespaces and their veths
// deleted, exit status 130.
func TestIntegrationTopologyInterrupt(t *testing.T) {
	needNetns(t)
	file := confFile(t, t.TempDir(), "mxs.conf", appDB+"PATHS=direct;epoll;socat\nTRANSPORTS=tcp;unix\n")
	cmd, tmp := hopbench(t, "--topology", file, "--time", "5s", "--runs", "2")
	interruptMidRun(t, cmd)
	noneLeft(t, tmp)
	topologyLeft(t, cmd.Process.Pid, tmp)
}

// interruptMidRun starts cmd, sends SIGINT once its first round has
// begun, and checks that it exits 130 within 30s.
func interruptMidRun(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	rest, err := signalMidRun(t, cmd, syscall.SIGINT)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit %v, want status 130\n%s", err, rest)
	}
}

// confFile writes a topology file conf as dir/name and returns its path.
func confFile(t *testing.T, dir, name, conf string) string {
	t.Helper()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// reportOf runs cmd (a hopbench with --format json) to the end and returns
// its checked report.
func reportOf(t *testing.T, cmd *exec.Cmd) *hop.Report {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hopbench: %v\n%s", err, stderr.String())
	}
	return decodeReport(t, out)
}

func decodeReport(t *testing.T, out []byte) *hop.Report {
	t.Helper()
	if err := hoptest.CheckJSON(out); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep hop.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// An ssh host runs the server side: an OpenSSH server this test starts on
// loopback with temporary keys stands for the database machine; hopbench
// ships pongd there, starts it through ssh, runs the client and the relay
// here, and at the end stops it by PID and removes what it shipped.
// testSSHD starts an OpenSSH server on loopback with temporary keys, as
// this test's child, and returns a topology file's lines for an ssh host
// db reached through it, and the directory holding its keys.
func testSSHD(t *testing.T) (conf, dir string) {
	t.Helper()
	peer.Root(t, "the test's sshd needs root")
	sshdBin := peer.Require(t, "sshd")
	keygen := peer.Require(t, "ssh-keygen")
	peer.Require(t, "ssh")
	dir = t.TempDir()
	for _, k := range []string{"host", "user"} {
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	port := porttest.Closed(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	files := map[string]string{
		"root.keys":   read("user.pub"),
		"known_hosts": "[127.0.0.1]:" + strconv.Itoa(port) + " " + read("host.pub"),
		"sshd_config": "Port " + strconv.Itoa(port) + "\nListenAddress 127.0.0.1\nHostKey " + dir + "/host\n" +
			"AuthorizedKeysFile " + dir + "/%u.keys\nPidFile none\nUsePAM no\nStrictModes no\n" +
			"PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// sshd's privilege separation needs its empty directory (sshd(8),
	// FILES), which the package's service unit creates at boot.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	sshd := exec.Command(sshdBin, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	logs, err := sshd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sshd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sshd.Process.Kill(); sshd.Wait() })
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, []byte("Server listening on 127.0.0.1 port "+strconv.Itoa(port))) {
		n, err := logs.Read(buf)
		if err != nil {
			t.Fatalf("sshd ended before it listened: %v\n%s", err, seen)
		}
		seen = append(seen, buf[:n]...)
	}
	go io.Copy(io.Discard, logs)

	conf = "HOST_APP=local\nHOST_DB=\"ssh://root@127.0.0.1:" + strconv.Itoa(port) + "\"\nSERVER_HOST=db\n" +
		"SSH_OPTIONS=\"-F /dev/null -i " + dir + "/user -o IdentitiesOnly=yes -o UserKnownHostsFile=" + dir + "/known_hosts -o StrictHostKeyChecking=yes\"\n"
	return conf, dir
}

func TestIntegrationTopologySSH(t *testing.T) {
	conf, dir := testSSHD(t)
	file := confFile(t, dir, "two.conf", conf)
	cmd, tmp := hopbench(t, "--topology", file, "--placement", "same-core", "--paths", "direct,epoll", "--transports", "tcp,unix",
		"--runs", "2", "--discard", "0", "--time", "200ms", "--format", "json", "-q")
	rep := reportOf(t, cmd)
	if len(rep.Hosts) != 2 || rep.Hosts[1].Kind != "ssh" || rep.Hosts[1].Address != "127.0.0.1" || rep.Hosts[1].Env == nil {
		t.Errorf("hosts %+v", rep.Hosts)
	}
	names := map[string]bool{}
	for _, p := range rep.Paths {
		names[p.Name] = true
		if p.LatencyUs.P50 <= 0 || p.Errors != 0 || p.Failed != 0 || p.Hosts == nil || p.Hosts.Server != "db" {
			t.Errorf("%s: p50 %v errors %d failed %d hosts %+v", p.Name, p.LatencyUs.P50, p.Errors, p.Failed, p.Hosts)
		}
	}
	// The relay's UNIX client leg is here; pongd's socket would be there.
	if !names["direct tcp"] || !names["epoll unix->tcp"] || names["direct unix"] {
		t.Errorf("paths %v", names)
	}
	noneLeft(t, tmp)
	topologyLeft(t, cmd.Process.Pid, tmp)
	sshLeft(t, cmd.Process.Pid)
}

// sshLeft checks that hopbench run pid left nothing on the ssh host (this
// machine, through the test's sshd): what it shipped went with the run,
// and pongd with it.
func sshLeft(t *testing.T, pid int) {
	t.Helper()
	prefix := "hoplat-" + strconv.Itoa(pid) + "-"
	// The ssh session has no TMPDIR of ours: its temp dirs are in /tmp.
	if left, _ := filepath.Glob(filepath.Join("/tmp", prefix+"*")); len(left) > 0 {
		t.Errorf("left on the ssh host: %v", left)
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if exe, err := os.Readlink(filepath.Join("/proc", p.Name(), "exe")); err == nil && strings.Contains(exe, prefix) {
			t.Errorf("process %s still runs %s", p.Name(), exe)
		}
	}
}

// A real MariaDB on the database host: the test prepares its files (users,
// sysbench's table) here, and the topology's BACKEND_START serves them
// inside the db namespace for the run, so that every query crosses the
// veth pair; hopbench stops it with the rest.
func TestIntegrationTopologyNetnsMariaDB(t *testing.T) {
	needNetns(t)
	peer.Require(t, "mariadbd")
	srv := mariadbtest.Start(t)
	port := porttest.Closed(t)
	argv, err := srv.Halt("10.77.0.2", port)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "mariadb.conf")
	conf := appDB + "BACKEND_HOST=db\n" +
		"BACKEND=\"mysql://" + srv.User + ":" + srv.Password + "@10.77.0.2:" + strconv.Itoa(port) + "/" + srv.DB + "\"\n" +
		"BACKEND_START=\"" + strings.Join(argv, " ") + "\"\n"
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, tmp := hopbench(t, "--topology", file, "--placement", "same-core", "--paths", "direct,epoll", "--transports", "tcp", "--command", "point-select",
		"--runs", "2", "--discard", "0", "--time", "300ms", "--format", "json", "-q")
	rep := reportOf(t, cmd)
	if len(rep.Paths) != 2 {
		t.Fatalf("paths %+v skipped %+v", rep.Paths, rep.Skipped)
	}
	t.Logf("backend %s: direct p50 %.1f µs, epoll p50 %.1f µs", rep.Config.Backend, rep.Paths[0].LatencyUs.P50, rep.Paths[1].LatencyUs.P50)
	for _, p := range rep.Paths {
		if p.LatencyUs.P50 <= 0 || p.Errors != 0 || p.Failed != 0 || p.Hosts == nil || p.Hosts.Server != "db" {
			t.Errorf("%s: p50 %v errors %d failed %d hosts %+v %+v", p.Name, p.LatencyUs.P50, p.Errors, p.Failed, p.Hosts, p.Rounds)
		}
	}
	noneLeft(t, tmp)
	topologyLeft(t, cmd.Process.Pid, tmp)
}

// Ctrl-C mid-run with the server on an ssh host: pongd there is stopped by
// its PID and what was shipped is removed before hopbench exits.
func TestIntegrationTopologySSHInterrupt(t *testing.T) {
	conf, dir := testSSHD(t)
	file := confFile(t, dir, "two.conf", conf+"PATHS=direct;epoll\nTRANSPORTS=tcp\n")
	cmd, tmp := hopbench(t, "--topology", file, "--time", "5s", "--runs", "2")
	interruptMidRun(t, cmd)
	noneLeft(t, tmp)
	sshLeft(t, cmd.Process.Pid)
}

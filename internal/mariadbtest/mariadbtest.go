package mariadbtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
)

// Server is a running MariaDB.
type Server struct {
	Addr     string // host:port on 127.0.0.1
	Socket   string // UNIX socket path
	User     string // account with mysql_native_password and all privileges
	Password string
	DB       string // schema holding the sysbench table
	PID      int

	// TableSize is the number of rows of sbtest1 (ids 1..TableSize).
	TableSize int
	// SHA2User is an account using caching_sha2_password, or "" when the
	// server has no such plugin (MariaDB 10.11 has none).
	SHA2User string

	dir   string
	paths map[string]string // the programs, by name
	port  int
	role  role // what the server is to a replication pair
	cmd   *exec.Cmd
	done  chan struct{} // closed when the process has exited
	err   error         // the process's exit status, once done
}

// Options tunes Launch; the zero value loads 10000 rows (sysbench's
// default --table-size).
type Options struct {
	TableSize int
}

// role is what a server is to replication: alone (no binary log), a
// primary (binary log in row format), or a replica of one.
type role int

const (
	alone role = iota
	primary
	replica
)

// Programs Launch needs.
var programs = []string{"mariadbd", "mariadb-install-db", "mariadb", "sysbench"}

// startTimeout bounds how long a fresh server may take to announce
// readiness; a 2-core machine shared with compilers needs a few seconds.
const startTimeout = 90 * time.Second

// Launch starts MariaDB. The caller must Stop it.
func Launch(opts Options) (*Server, error) {
	s, err := newServer(opts, alone)
	if err != nil {
		return nil, err
	}
	if err := s.start(); err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.setUp(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// newServer finds the programs and makes the temporary directory of a
// server that is not started yet.
func newServer(opts Options, r role) (*Server, error) {
	if opts.TableSize == 0 {
		opts.TableSize = 10000
	}
	paths := map[string]string{}
	for _, p := range programs {
		path, err := peer.Find(p)
		if err != nil {
			return nil, err
		}
		paths[p] = path
	}
	// Short directory: sun_path holds 108 bytes.
	dir, err := os.MkdirTemp("", "hoplat-mariadb-")
	if err != nil {
		return nil, fmt.Errorf("mariadbtest: %w", err)
	}
	return &Server{
		Socket: filepath.Join(dir, "mysqld.sock"), User: "bench", Password: "bench-pw-7Qx",
		DB: "sbtest", TableSize: opts.TableSize, dir: dir, paths: paths, role: r,
	}, nil
}

func run(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mariadbtest: %s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return nil
}

// freePort asks the kernel for an unused loopback port. Another process
// could take it before mariadbd binds; the start then fails loudly.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start() error {
	data := filepath.Join(s.dir, "data")
	// --tmpdir of its own: the bootstrap's temporary tables are named by
	// PID and thread, and two bootstraps sharing /tmp (a Pair makes its
	// two datadirs at once) have removed each other's.
	if err := run(s.paths["mariadb-install-db"], "--no-defaults", "--datadir="+data,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--user=root",
		"--skip-name-resolve", "--tmpdir="+s.dir); err != nil {
		return err
	}
	// freePort's port can be taken by another process before mariadbd
	// binds it (a suite starts many servers): mariadbd then exits saying
	// so, and starts again on another.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return fmt.Errorf("mariadbtest: free port: %w", err)
		}
		err = s.launch(port)
		if err == nil || attempt == 3 || !strings.Contains(s.logTail(), "Address already in use") {
			return err
		}
	}
}

// launch starts mariadbd on port and waits until it is ready.
func (s *Server) launch(port int) error {
	s.port = port
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

	// mariadbd is built with systemd support: it writes READY=1 to the
	// datagram socket named by NOTIFY_SOCKET once it accepts connections,
	// so readiness is an event rather than a poll.
	notifyPath := filepath.Join(s.dir, "notify.sock")
	os.Remove(notifyPath) // an earlier launch's
	notify, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: notifyPath, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("mariadbtest: notify socket: %w", err)
	}
	defer notify.Close()

	argv := s.argv(s.paths["mariadbd"], "127.0.0.1", port)
	s.cmd = exec.Command(argv[0], argv[1:]...)
	s.cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+notifyPath)
	s.cmd.SysProcAttr = procAttr()
	// The kernel ties Pdeathsig to the thread that forks, not to the
	// process: mariadbd is started and waited for on a thread locked for
	// the while, which then ends. Forked from any thread of the runtime's,
	// it got SIGTERM when that thread exited: a relay's loop goroutine,
	// which keeps its thread locked, ends its thread with it, and the
	// relay tests' shared server went away between two tests.
	started := make(chan error, 1)
	s.done = make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with mariadbd
		if err := s.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		s.err = s.cmd.Wait()
		close(s.done)
		notify.Close() // unblock the reader below if mariadbd died
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("mariadbtest: start mariadbd: %w", err)
	}
	s.PID = s.cmd.Process.Pid

	ready := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, _, err := notify.ReadFromUnix(buf)
			if err != nil {
				ready <- err
				return
			}
			for _, line := range bytes.Split(buf[:n], []byte("\n")) {
				if string(line) == "READY=1" {
					ready <- nil
					return
				}
			}
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			return fmt.Errorf("mariadbtest: mariadbd exited before ready (%v): %s", s.err, s.logTail())
		}
		return nil
	case <-time.After(startTimeout):
		notify.Close()
		<-ready
		return fmt.Errorf("mariadbtest: mariadbd not ready after %v: %s", startTimeout, s.logTail())
	}
}

// argv is mariadbd's command line serving s's files on bind:port.
func (s *Server) argv(mariadbd, bind string, port int) []string {
	argv := []string{mariadbd, "--no-defaults",
		"--datadir=" + filepath.Join(s.dir, "data"), "--socket=" + s.Socket, "--port=" + strconv.Itoa(port),
		"--bind-address=" + bind, "--user=root",
		"--pid-file=" + filepath.Join(s.dir, "mysqld.pid"),
		"--log-error=" + filepath.Join(s.dir, "error.log"),
		"--skip-name-resolve", "--performance-schema=OFF", "--tmpdir=" + s.dir,
		"--innodb-buffer-pool-size=64M", "--innodb-log-file-size=16M",
		"--innodb-flush-log-at-trx-commit=0", "--max-connections=200",
	}
	return append(argv, s.role.options(s.dir)...)
}

// Halt stops mariadbd but keeps its files, and returns the command line
// that serves them again on bind:port: for a test that runs the same
// database where this package cannot start it, such as inside a network
// namespace another program creates. Stop still removes the files.
func (s *Server) Halt(bind string, port int) ([]string, error) {
	if err := s.terminate(); err != nil {
		return nil, err
	}
	bin, err := peer.Find("mariadbd")
	if err != nil {
		return nil, err
	}
	return s.argv(bin, bind, port), nil
}

// terminate ends a running mariadbd with SIGTERM and waits for it, killing
// it when it ignores the signal for 60s. The files stay.
func (s *Server) terminate() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	defer func() { s.cmd = nil }()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		return errors.New("mariadbtest: mariadbd ignored SIGTERM for 60s; killed")
	}
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "error.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func (s *Server) setUp() error {
	paths := s.paths
	sql := fmt.Sprintf(`CREATE DATABASE %[1]s;
CREATE USER '%[2]s'@'%%' IDENTIFIED VIA mysql_native_password USING PASSWORD('%[3]s');
CREATE USER '%[2]s'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('%[3]s');
GRANT ALL ON *.* TO '%[2]s'@'%%';
GRANT ALL ON *.* TO '%[2]s'@'localhost';`, s.DB, s.User, s.Password)
	if err := run(paths["mariadb"], "--no-defaults", "-uroot", "--socket="+s.Socket, "-e", sql); err != nil {
		return err
	}
	// caching_sha2_password exists only on servers that ship the plugin.
	// A primary gets no such account: INSTALL PLUGIN is not replicated,
	// and the account's CREATE USER would stop its replica.
	if s.role == primary {
		// Without READ ONLY ADMIN (in ALL PRIVILEGES) the account obeys
		// the replica's read_only: a write a router sends the replica
		// fails there instead of forking the data.
		if err := run(paths["mariadb"], "--no-defaults", "-uroot", "--socket="+s.Socket, "-e", fmt.Sprintf(
			"REVOKE READ_ONLY ADMIN ON *.* FROM '%[1]s'@'%%', '%[1]s'@'localhost'", s.User)); err != nil {
			return err
		}
		return s.prepareSysbench()
	}
	out, err := exec.Command(paths["mariadb"], "--no-defaults", "-uroot", "--socket="+s.Socket, "-N", "-e",
		"SELECT COUNT(*) FROM information_schema.ALL_PLUGINS WHERE PLUGIN_NAME='caching_sha2_password'").Output()
	if err == nil && strings.TrimSpace(string(out)) != "0" {
		user := "bench_sha2"
		sql := fmt.Sprintf(`INSTALL PLUGIN caching_sha2_password SONAME 'caching_sha2_password';
CREATE USER '%[1]s'@'%%' IDENTIFIED WITH caching_sha2_password BY '%[2]s';
GRANT ALL ON *.* TO '%[1]s'@'%%';`, user, s.Password)
		if run(paths["mariadb"], "--no-defaults", "-uroot", "--socket="+s.Socket, "-e", sql) == nil {
			s.SHA2User = user
		}
	}
	return s.prepareSysbench()
}

// prepareSysbench loads sysbench's table, with sysbench itself.
func (s *Server) prepareSysbench() error {
	args := append([]string{"oltp_read_only"}, s.SysbenchArgs(true)...)
	return run(s.paths["sysbench"], append(args, "--tables=1", "--table-size="+strconv.Itoa(s.TableSize), "prepare")...)
}

// Stop ends mariadbd with SIGTERM, waits for it and removes its files.
func (s *Server) Stop() error {
	err := s.terminate()
	if rmErr := os.RemoveAll(s.dir); rmErr != nil && err == nil {
		err = fmt.Errorf("mariadbtest: %w", rmErr)
	}
	return err
}

// Start launches a server for t alone and stops it at cleanup. It skips t
// (fails it under HOPLAT_REQUIRE_INTEGRATION) when a program is missing.
func Start(t testing.TB) *Server {
	t.Helper()
	return startFor(t, Launch)
}

// shared is the test process's one server; sharedPair in replication.go
// its one pair.
var shared = one[*Server]{launch: Launch}

// Shared returns the test process's one server, starting it on first use.
// A package that calls it stops the server from TestMain with StopShared.
func Shared(t testing.TB) *Server {
	t.Helper()
	return shared.get(t)
}

// stopper is what Launch and LaunchPair start: a server or a pair.
type stopper interface{ Stop() error }

// startFor launches with launch for t alone and stops what it started at
// t's cleanup, skipping t as requirePrograms does.
func startFor[T stopper](t testing.TB, launch func(Options) (T, error)) T {
	t.Helper()
	requirePrograms(t)
	v, err := launch(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := v.Stop(); err != nil {
			t.Error(err)
		}
	})
	return v
}

// one is a test process's single T, launched on first use and stopped by
// StopShared; started is set only when the launch succeeded.
type one[T stopper] struct {
	launch  func(Options) (T, error)
	once    sync.Once
	v       T
	started bool
	err     error
}

func (o *one[T]) get(t testing.TB) T {
	t.Helper()
	requirePrograms(t)
	o.once.Do(func() {
		o.v, o.err = o.launch(Options{})
		o.started = o.err == nil
	})
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.v
}

// stop stops the T if it was started.
func (o *one[T]) stop() error {
	if !o.started {
		return nil
	}
	return o.v.Stop()
}

// requirePrograms skips t (fails it under HOPLAT_REQUIRE_INTEGRATION)
// when a program Launch needs is missing, and under -short.
func requirePrograms(t testing.TB) {
	t.Helper()
	for _, p := range programs {
		peer.Require(t, p)
	}
}

// StopShared stops the server Shared started and the pair SharedPair
// started, if any.
func StopShared() error {
	return errors.Join(shared.stop(), sharedPair.stop())
}

// Probe dials the server's TCP port, proving it accepts connections.
func (s *Server) Probe(ctx context.Context) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// SysbenchArgs returns the connection flags sysbench's mysql driver needs
// to reach s, over its UNIX socket when unixSocket is set, else over TCP.
func (s *Server) SysbenchArgs(unixSocket bool) []string {
	args := []string{"--db-driver=mysql"}
	if unixSocket {
		args = append(args, "--mysql-socket="+s.Socket)
	} else {
		host, port, _ := net.SplitHostPort(s.Addr)
		args = append(args, "--mysql-host="+host, "--mysql-port="+port)
	}
	return append(args, "--mysql-user="+s.User, "--mysql-password="+s.Password, "--mysql-db="+s.DB)
}

// SQL runs statements with the mariadb client over the server's socket as
// its account and returns what it printed, tab-separated, without column
// names.
func (s *Server) SQL(statements string) (string, error) {
	mariadb, err := peer.Find("mariadb")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(mariadb, "--no-defaults", "--batch", "--skip-column-names",
		"--socket="+s.Socket, "--user="+s.User, "--database="+s.DB, "-e", statements)
	cmd.Env = append(os.Environ(), "MYSQL_PWD="+s.Password)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("mariadbtest: mariadb -e %q: %w: %s", statements, err, out)
	}
	return string(out), nil
}

// GlobalStatus reads SHOW GLOBAL STATUS counters by name (Com_select, …).
func (s *Server) GlobalStatus(names ...string) (map[string]int64, error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	out, err := s.SQL("SHOW GLOBAL STATUS WHERE Variable_name IN (" + strings.Join(quoted, ",") + ")")
	if err != nil {
		return nil, err
	}
	got := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, value, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("mariadbtest: status %s = %q: %w", name, value, err)
		}
		got[name] = n
	}
	for _, n := range names {
		if _, ok := got[n]; !ok {
			return nil, fmt.Errorf("mariadbtest: SHOW GLOBAL STATUS has no %s", n)
		}
	}
	return got, nil
}

package routecheck

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/await"
	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/testmain"
	"github.com/hoplat/hoplat/mysql/wire"
)

// TestMain stops the shared replication pair and removes the binaries the
// tests built.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "routecheck", Unchecked: true}))
}

// runTime is how long each sysbench run lasts: HOPLAT_ROUTE_TIME (a Go
// duration, e.g. 10s for the full acceptance run), else 2 s, so
// that the ten runs fit make test's budget.
func runTime(t *testing.T) time.Duration {
	t.Helper()
	v := os.Getenv("HOPLAT_ROUTE_TIME")
	if v == "" {
		return 2 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second {
		t.Fatalf("HOPLAT_ROUTE_TIME=%q: want a Go duration of at least 1s", v)
	}
	return d
}

// hoprelay returns the hoprelay binary, failing t when it refuses the
// router's documented command line.
func hoprelay(t *testing.T) string {
	t.Helper()
	bin := peer.Hoplat(t, "hoprelay")
	out, err := exec.Command(bin, "--route", "rw", "--user", "u", "--password", "p", "--help").CombinedOutput()
	if err == nil {
		return bin
	}
	t.Fatalf("%s --route rw --user u --password p --help: %v\n%s", bin, err, out)
	return ""
}

// router is a running hoprelay --route.
type router struct {
	addr   string // host:port it listens on
	cmd    *exec.Cmd
	exited chan struct{}
	stderr bytes.Buffer
}

// startRouter runs hoprelay --route mode on the epoll engine, listening on
// a loopback port the kernel picks, with backends as CONNECT addresses
// (for rw the first is the primary), logging clients in as srv's account.
// It is stopped when t ends.
func startRouter(t *testing.T, bin, mode string, srv *mariadbtest.Server, backends ...*mariadbtest.Server) *router {
	t.Helper()
	args := []string{"--route", mode, "--engine", "epoll", "--user", srv.User, "--password", srv.Password, "tcp:127.0.0.1:0"}
	for _, b := range backends {
		args = append(args, "tcp:"+b.Addr)
	}
	r := &router{cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		// The readiness line, then the rest drained, so that hoprelay
		// never blocks on stdout.
		rd := bufio.NewReader(stdout)
		line, _ := rd.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, rd)
		r.cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.exited:
		case <-time.After(10 * time.Second):
			r.cmd.Process.Kill()
			<-r.exited
			t.Errorf("hoprelay --route %s ignored SIGTERM for 10s", mode)
		}
	})
	var line string
	select {
	case line = <-lines:
	case <-time.After(10 * time.Second):
	}
	// "listening tcp:127.0.0.1:PORT" (tcp4: where the user wrote TCP4-LISTEN).
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if _, a, found := strings.Cut(addr, ":"); ok && found {
		r.addr = a
	} else {
		t.Fatalf("hoprelay %s: readiness line %q within 10s\n%s", strings.Join(args, " "), line, r.stderr.String())
	}
	return r
}

// sysbench runs one sysbench workload through addr as srv's account, 1
// thread for d, and returns its totals; a run that fails fails t.
func sysbench(t *testing.T, workload, addr string, srv *mariadbtest.Server, d time.Duration, extra ...string) sysbenchTotals {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	args := append([]string{workload, "--db-driver=mysql", "--mysql-host=" + host, "--mysql-port=" + port,
		"--mysql-user=" + srv.User, "--mysql-password=" + srv.Password, "--mysql-db=" + srv.DB,
		"--tables=1", fmt.Sprintf("--table-size=%d", srv.TableSize), "--threads=1",
		fmt.Sprintf("--time=%d", int(d/time.Second)), "--report-interval=0"}, extra...)
	out, err := exec.Command("sysbench", append(args, "run")...).CombinedOutput()
	totals, ok := parseSysbench(string(out))
	if err != nil || !ok {
		t.Fatalf("sysbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return totals
}

// counters reads what a server counted of the statements it ran.
func counters(t *testing.T, s *mariadbtest.Server) map[string]int64 {
	t.Helper()
	c, err := s.GlobalStatus("Com_select", "Com_insert", "Com_update", "Com_delete")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func rowsWritten(t *testing.T, replica *mariadbtest.Server) int64 {
	t.Helper()
	n, err := replica.RowsWritten()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The acceptance: sysbench's five OLTP workloads through rw with a
// primary and its replica, with prepared statements and without, 0 errors
// and 0 reconnects; point selects land on the replica; the primary runs
// exactly the writes oltp_write_only made; no client write reaches the
// replica (read_only would refuse it, and its account statistics count
// none).
func TestSysbenchThroughRW(t *testing.T) {
	peer.Require(t, "sysbench")
	bin := hoprelay(t)
	pair := mariadbtest.SharedPair(t)
	d := runTime(t)
	r := startRouter(t, bin, "rw", pair.Primary, pair.Primary, pair.Replica)
	// Before any backend has greeted it, the router offers no MariaDB
	// extended capability; once both have (the replica with the first
	// autocommit read), it offers the metadata caching MariaDB offers, and
	// the prepared-statement runs after that negotiate it: their executes
	// come without column definitions, which the router's tracker reads.
	if ext := greetingExt(t, r.addr); ext != 0 {
		t.Fatalf("first greeting offers extended capabilities 0x%x; want none before a backend greeted", ext)
	}
	workloads := []struct {
		name string
		args []string
	}{
		{"oltp_read_write", nil},
		{"oltp_read_only", nil},
		{"oltp_read_only", []string{"--skip_trx=on"}},
		{"oltp_point_select", nil},
		{"oltp_write_only", nil},
	}
	for _, ps := range []string{"auto", "disable"} {
		for _, w := range workloads {
			name := strings.Join(append([]string{w.name, "ps=" + ps}, w.args...), "/")
			t.Run(name, func(t *testing.T) {
				p0, r0, w0 := counters(t, pair.Primary), counters(t, pair.Replica), rowsWritten(t, pair.Replica)
				got := sysbench(t, w.name, r.addr, pair.Primary, d, append([]string{"--db-ps-mode=" + ps}, w.args...)...)
				p1, r1, w1 := counters(t, pair.Primary), counters(t, pair.Replica), rowsWritten(t, pair.Replica)
				t.Logf("%+v; primary Com_select %d, replica Com_select %d", got, p1["Com_select"]-p0["Com_select"], r1["Com_select"]-r0["Com_select"])
				if got.Transactions == 0 || got.Errors != 0 || got.Reconnects != 0 {
					t.Errorf("sysbench: %d transactions, %d errors, %d reconnects; want some, 0, 0", got.Transactions, got.Errors, got.Reconnects)
				}
				if w1 != w0 {
					t.Errorf("clients wrote %d rows on the replica", w1-w0)
				}
				if ext := greetingExt(t, r.addr); w.args != nil && ext&wire.ExtCapCacheMetadata == 0 {
					t.Errorf("after reads on the replica the greeting offers 0x%x; want CACHE_METADATA", ext)
				}
				switch w.name {
				case "oltp_point_select":
					if sel := r1["Com_select"] - r0["Com_select"]; 10*sel < 9*got.Read {
						t.Errorf("replica ran %d of %d point selects; want at least 90%%", sel, got.Read)
					}
				case "oltp_write_only":
					writes := p1["Com_insert"] + p1["Com_update"] + p1["Com_delete"] -
						p0["Com_insert"] - p0["Com_update"] - p0["Com_delete"]
					if writes != got.Write {
						t.Errorf("primary ran %d INSERT/UPDATE/DELETE; sysbench made %d writes", writes, got.Write)
					}
				}
			})
		}
	}
}

// greetingExt reads the router's greeting on a fresh connection and
// returns the MariaDB extended capabilities it offers.
func greetingExt(t *testing.T, addr string) uint32 {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		t.Fatalf("greeting: %v", err)
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	if _, err := io.ReadFull(c, p); err != nil {
		t.Fatalf("greeting: %v", err)
	}
	g, err := wire.ParseGreeting(p)
	if err != nil {
		t.Fatalf("greeting: %v", err)
	}
	return g.ExtCaps
}

// The stock mariadb client logs in through both modes, runs a query and a
// prepared statement, and gets MariaDB's 1045 for a wrong password.
func TestMariadbClientThroughRouter(t *testing.T) {
	mariadb := peer.Require(t, "mariadb")
	bin := hoprelay(t)
	pair := mariadbtest.SharedPair(t)
	for _, mode := range []string{"conn", "rw"} {
		t.Run(mode, func(t *testing.T) {
			r := startRouter(t, bin, mode, pair.Primary, pair.Primary, pair.Replica)
			host, port, _ := strings.Cut(r.addr, ":")
			client := func(password, sql string) (string, error) {
				cmd := exec.Command(mariadb, "--no-defaults", "--batch", "--skip-column-names", "--skip-reconnect",
					"--host="+host, "--port="+port, "--user="+pair.Primary.User, "--database="+pair.Primary.DB, "-e", sql)
				cmd.Env = append(os.Environ(), "MYSQL_PWD="+password)
				out, err := cmd.CombinedOutput()
				return string(out), err
			}
			out, err := client(pair.Primary.Password,
				"SELECT COUNT(*) FROM sbtest1; PREPARE s FROM 'SELECT c FROM sbtest1 WHERE id = ?'; SET @id = 7; EXECUTE s USING @id; DEALLOCATE PREPARE s")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if err != nil || len(lines) != 2 || lines[0] != fmt.Sprint(pair.Primary.TableSize) {
				t.Fatalf("query and prepared statement: %v\n%s", err, out)
			}
			want, err := pair.Primary.SQL("SELECT c FROM sbtest1 WHERE id = 7")
			if err != nil {
				t.Fatal(err)
			}
			if lines[1] != strings.TrimSpace(want) {
				t.Errorf("prepared statement returned %q; want %q", lines[1], strings.TrimSpace(want))
			}
			out, err = client("wrong-"+pair.Primary.Password, "SELECT 1")
			if err == nil || !strings.Contains(out, "ERROR 1045") {
				t.Errorf("wrong password: %v, %q; want ERROR 1045", err, out)
			}
		})
	}
}

// A primary that dies while a client's transaction waits on it gives the
// client an error within 2 s, never a hang; once the primary is back, the
// same relay serves new connections. It runs after the other tests of the
// shared pair: the primary it kills may lose its last second of commits
// (innodb_flush_log_at_trx_commit=0).
func TestPrimaryDiesMidTransaction(t *testing.T) {
	mariadb := peer.Require(t, "mariadb")
	bin := hoprelay(t)
	pair := mariadbtest.SharedPair(t)
	r := startRouter(t, bin, "rw", pair.Primary, pair.Primary, pair.Replica)
	host, port, _ := strings.Cut(r.addr, ":")
	session := func() *exec.Cmd {
		// --unbuffered: each statement's result is written as it comes,
		// not when the client exits.
		cmd := exec.Command(mariadb, "--no-defaults", "--batch", "--unbuffered", "--skip-column-names", "--skip-reconnect",
			"--host="+host, "--port="+port, "--user="+pair.Primary.User, "--database="+pair.Primary.DB)
		cmd.Env = append(os.Environ(), "MYSQL_PWD="+pair.Primary.Password)
		return cmd
	}

	cli := session()
	stdin, err := cli.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cli.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cli.Stderr = &stderr
	if err := cli.Start(); err != nil {
		t.Fatal(err)
	}
	// finished closes once the client has exited, with its status in
	// exitErr.
	finished := make(chan struct{})
	var exitErr error
	lines := make(chan string, 1)
	go func() {
		rd := bufio.NewReader(stdout)
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				break
			}
			select {
			case lines <- line:
			default: // nobody waits for a line but the first
			}
		}
		exitErr = cli.Wait()
		close(finished)
	}()
	defer func() {
		select {
		case <-finished:
		default:
			cli.Process.Kill()
			<-finished
		}
	}()
	// The marker line says the transaction is open, its row written on
	// the primary.
	fmt.Fprintln(stdin, "BEGIN; INSERT INTO sbtest1 (k, c, pad) VALUES (1, 'mid-trx', 'x'); SELECT 'in-trx';")
	select {
	case line := <-lines:
		if strings.TrimSpace(line) != "in-trx" {
			t.Fatalf("opening the transaction: %q\n%s", line, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("opening the transaction: no line within 30s\n%s", stderr.String())
	}
	// A statement the primary holds for a while: it is running there
	// when the primary dies.
	fmt.Fprintln(stdin, "SELECT SLEEP(60);")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = await.Poll(ctx, nil, 50*time.Millisecond, func() bool {
		n, err := pair.Primary.RootSQL("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP(60)%'")
		return err == nil && strings.TrimSpace(n) == "1"
	})
	if err != nil {
		t.Fatalf("the client's SELECT SLEEP(60) never ran on the primary: %v", err)
	}

	start := time.Now()
	if err := pair.Primary.Kill(); err != nil {
		t.Fatal(err)
	}
	// Kill returns once mariadbd is reaped: how long the kernel took to
	// tear it down (its buffer pool unmapped, then its files closed) is
	// the machine's, and is logged, not held. From the reap on, the
	// primary's sockets are closed: the relay reads their end at once,
	// with no timer between, and what is left is its error packet or
	// its close on loopback and the client's exit, a few wake-ups. The
	// 2 s this test promises is three orders of magnitude above that on
	// any machine, loaded or not; a relay that waited for something
	// instead (the statement's 60 s, a read timeout) would miss it.
	reaped := time.Now()
	select {
	case <-finished:
		took := time.Since(reaped)
		t.Logf("client ended %v after the primary was reaped (the kill took %v): %v: %s", took.Round(time.Millisecond),
			reaped.Sub(start).Round(time.Millisecond), exitErr, strings.TrimSpace(stderr.String()))
		if exitErr == nil || !lostBackend.MatchString(stderr.String()) {
			t.Errorf("client ended with %v, stderr %q; want %q", exitErr, stderr.String(), lostBackend)
		}
		if took > 2*time.Second {
			t.Errorf("client's error came %v after the primary died; want within 2s", took)
		}
	case <-time.After(10 * time.Second):
		cli.Process.Kill()
		<-finished // the client's stderr is written until it exits
		t.Errorf("client still waiting 10s after the primary died: %s", stderr.String())
	}
	select {
	case <-r.exited:
		t.Fatalf("hoprelay exited when the primary died: %v\n%s", r.cmd.ProcessState, r.stderr.String())
	default:
	}

	if err := pair.Primary.Restart(); err != nil {
		t.Fatal(err)
	}
	// A new connection through the same relay: a write, which only the
	// primary may take, and its row read back in a transaction (on the
	// primary too). The relay may still be backing off from the primary's
	// refusals: it has 5 s.
	back := time.Now()
	var out []byte
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tries := 0
	err = await.Poll(ctx, r.exited, 100*time.Millisecond, func() bool {
		tries++
		cmd := session()
		cmd.Stdin = strings.NewReader("INSERT INTO sbtest1 (k, c, pad) VALUES (2, 'after-restart', 'x'); " +
			"BEGIN; SELECT COUNT(*) FROM sbtest1 WHERE c = 'after-restart'; COMMIT;")
		out, err = cmd.CombinedOutput()
		return err == nil && strings.TrimSpace(string(out)) == "1"
	})
	t.Logf("served again %v after the primary's restart, at try %d", time.Since(back).Round(time.Millisecond), tries)
	if err != nil {
		t.Fatalf("through the relay once the primary is back: %v\n%s\nhoprelay: %s", err, out, r.stderr.String())
	}
}

// lostBackend is how the stock mariadb client prints the router's error
// for a backend that went away: ER_CONNECTION_KILLED with SQLSTATE 08S01.
// An ERR carrying a client library's own code (2013, CR_SERVER_LOST) is
// what libmariadb reports as ERROR 2027, malformed packet.
var lostBackend = regexp.MustCompile(`ERROR 1927 \(08S01\) at line [0-9]+: Lost connection to backend server`)

// A server killed while it runs a statement (its response not yet begun)
// or while it streams a result set (the client amid the rows) gives the
// stock mariadb client the router's error, well formed at the packet
// boundary it came to, through either mode: never a malformed packet
// (2027) or a sequence mismatch.
func TestServerKilledMidStatement(t *testing.T) {
	mariadb := peer.Require(t, "mariadb")
	bin := hoprelay(t)
	srv := mariadbtest.Start(t)
	statements := []struct{ name, sql, running string }{
		{"sleep", "SELECT SLEEP(60)", "SELECT SLEEP(60)%"},
		// A cross join of the table with itself: 10^8 rows, streamed
		// for far longer than the test waits.
		{"stream", "SELECT a.c, b.c FROM sbtest1 a, sbtest1 b", "SELECT a.c, b.c FROM sbtest1 a%"},
	}
	for _, mode := range []string{"conn", "rw"} {
		for _, st := range statements {
			t.Run(mode+"/"+st.name, func(t *testing.T) {
				r := startRouter(t, bin, mode, srv, srv)
				host, port, _ := strings.Cut(r.addr, ":")
				cli := exec.Command(mariadb, "--no-defaults", "--batch", "--quick", "--skip-column-names", "--skip-reconnect",
					"--host="+host, "--port="+port, "--user="+srv.User, "--database="+srv.DB, "-e", st.sql)
				cli.Env = append(os.Environ(), "MYSQL_PWD="+srv.Password)
				cli.Stdout = io.Discard
				var stderr bytes.Buffer
				cli.Stderr = &stderr
				if err := cli.Start(); err != nil {
					t.Fatal(err)
				}
				// finished closes once the client has exited, with its
				// status in exitErr.
				finished := make(chan struct{})
				var exitErr error
				go func() { exitErr = cli.Wait(); close(finished) }()
				defer func() {
					select {
					case <-finished:
					default:
						cli.Process.Kill()
						<-finished
					}
				}()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				err := await.Poll(ctx, nil, 50*time.Millisecond, func() bool {
					n, err := srv.RootSQL(fmt.Sprintf("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%s'", st.running))
					return err == nil && strings.TrimSpace(n) == "1"
				})
				if err != nil {
					t.Fatalf("%s never ran on the server: %v\n%s", st.sql, err, stderr.String())
				}
				if err := srv.Kill(); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := srv.Restart(); err != nil {
						t.Fatal(err)
					}
				}()
				select {
				case <-finished:
					msg := strings.TrimSpace(stderr.String())
					t.Logf("client: %v: %s", exitErr, msg)
					if exitErr == nil || !lostBackend.MatchString(msg) {
						t.Errorf("client ended with %v, stderr %q; want %q", exitErr, msg, lostBackend)
					}
				case <-time.After(10 * time.Second):
					cli.Process.Kill()
					<-finished // the client's stderr is written until it exits
					t.Errorf("client still waiting 10s after the server died: %s", stderr.String())
				}
			})
		}
	}
}

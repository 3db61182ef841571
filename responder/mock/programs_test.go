package mock

import (
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// These tests serve programs we did not write — the mariadb client,
// sysbench (libmariadb) and PyMySQL — from the mock, unmodified.

// tcpPort is the mock's TCP port, as the programs' flags take it.
func tcpPort(m *mysqltest.Mock[*Server]) string {
	_, p, _ := net.SplitHostPort(m.TCPAddr)
	return p
}

func runProgram(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

func TestMariaDBClientAgainstMock(t *testing.T) {
	cli := peer.Require(t, "mariadb")
	for _, auth := range []string{wire.PluginNative, wire.PluginCachingSHA2} {
		t.Run(auth, func(t *testing.T) {
			m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "bench", Password: "secret", Auth: auth, Rows: 2, RowBytes: 11})
			// Over the socket first: caching_sha2's full authentication
			// sends the password in clear there, and fills the cache that
			// the TCP login's fast path then uses.
			transports := [][]string{{"--socket=" + m.Sock}, {"-h127.0.0.1", "-P" + tcpPort(m)}}
			for _, via := range transports {
				args := append([]string{"--no-defaults"}, via...)
				args = append(args, "-ubench", "-psecret", "-e",
					"SELECT c FROM sbtest1 WHERE id=1; SELECT DATABASE(); SHOW WARNINGS; BEGIN; COMMIT", "sbtest")
				out, err := runProgram(t, cli, args...)
				if err != nil {
					t.Fatalf("mariadb %v: %v\n%s", via, err, out)
				}
				row := string(rowValue(11))
				if strings.Count(out, row) != 2 || !strings.Contains(out, "sbtest") {
					t.Fatalf("mariadb %v printed %q; want two rows %q and the schema", via, out, row)
				}
				args = append([]string{"--no-defaults"}, via...)
				out, err = runProgram(t, cli, append(args, "-ubench", "-pwrong", "-e", "SELECT 1")...)
				if err == nil || !strings.Contains(out, "Access denied for user 'bench'@") || !strings.Contains(out, "(using password: YES)") {
					t.Fatalf("mariadb %v with a wrong password: %v\n%s", via, err, out)
				}
			}
		})
	}
}

// TestMariaDBClientQueries: the mariadb client prints the evaluated
// expressions and mysqld's errors, over TCP and UNIX.
func TestMariaDBClientQueries(t *testing.T) {
	cli := peer.Require(t, "mariadb")
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "bench", Password: "secret"})
	for _, via := range [][]string{{"--socket=" + m.Sock}, {"-h127.0.0.1", "-P" + tcpPort(m)}} {
		args := append([]string{"--no-defaults", "--batch", "--skip-column-names"}, via...)
		args = append(args, "-ubench", "-psecret", "-e",
			"SELECT 1+1, 'x', @@version_comment, @@session.autocommit, DATABASE(), USER(); SHOW VARIABLES LIKE 'max_allowed_packet'; SHOW DATABASES", "sbtest")
		out, err := runProgram(t, cli, args...)
		if err != nil {
			t.Fatalf("mariadb %v: %v\n%s", via, err, out)
		}
		for _, want := range []string{"2\tx\thoplat mock mysqld\t1\tsbtest\tbench@", "max_allowed_packet\t67108864\n", "information_schema\nsbtest\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("mariadb %v printed %q; want %q in it", via, out, want)
			}
		}
		args = append([]string{"--no-defaults"}, via...)
		out, err = runProgram(t, cli, append(args, "-ubench", "-psecret", "-e", "SELECT * FROM mysql.user")...)
		if err == nil || !strings.Contains(out, "ERROR 1146 (42S02)") {
			t.Errorf("mariadb %v on a system table: %v\n%s", via, err, out)
		}
	}
}

// TestMariaDBAdminAgainstMock: mariadb-admin ping (COM_PING), status
// (COM_STATISTICS) and variables (SHOW VARIABLES), over TCP and UNIX.
func TestMariaDBAdminAgainstMock(t *testing.T) {
	admin := peer.Require(t, "mariadb-admin")
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "bench", Password: "secret"})
	for _, via := range [][]string{{"--socket=" + m.Sock}, {"-h127.0.0.1", "-P" + tcpPort(m)}} {
		for cmd, want := range map[string][]string{
			"ping":      {"mysqld is alive"},
			"status":    {"Uptime: ", "Threads: ", "Questions: "},
			"variables": {"| max_allowed_packet ", "| 67108864 ", "| version ", "| 8.0.36-hoplat "},
		} {
			args := append([]string{"--no-defaults"}, via...)
			out, err := runProgram(t, admin, append(args, "-ubench", "-psecret", cmd)...)
			if err != nil {
				t.Fatalf("mariadb-admin %v %s: %v\n%s", via, cmd, err, out)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("mariadb-admin %v %s printed %q; want %q in it", via, cmd, out, w)
				}
			}
		}
	}
	if errs := m.Errors(); len(errs) > 0 {
		t.Fatalf("mock ended connections with errors: %v", errs)
	}
}

var (
	sysbenchTransactions = regexp.MustCompile(`transactions:\s+(\d+)`)
	sysbenchErrors       = regexp.MustCompile(`ignored errors:\s+(\d+)`)
)

func TestSysbenchAgainstMock(t *testing.T) {
	sb := peer.Require(t, "sysbench")
	native := mysqltest.StartMock(t, NewServer, ServerConfig{User: "sbtest", Password: "sbpw"})
	sha2 := mysqltest.StartMock(t, NewServer, ServerConfig{User: "sbtest", Password: "sbpw", Auth: wire.PluginCachingSHA2})
	tcp := func(m *mysqltest.Mock[*Server]) []string {
		return []string{"--mysql-host=127.0.0.1", "--mysql-port=" + tcpPort(m)}
	}
	unix := func(m *mysqltest.Mock[*Server]) []string { return []string{"--mysql-socket=" + m.Sock} }
	tests := []struct {
		test, ps string
		m        *mysqltest.Mock[*Server]
		via      func(*mysqltest.Mock[*Server]) []string
	}{
		{"oltp_point_select", "auto", native, tcp},
		{"oltp_point_select", "disable", native, tcp},
		{"oltp_read_only", "auto", native, tcp},
		{"oltp_read_only", "disable", native, tcp},
		{"oltp_read_only", "auto", native, unix},
		// Full authentication in clear over the socket, then the fast
		// path over TCP.
		{"oltp_point_select", "auto", sha2, unix},
		{"oltp_point_select", "auto", sha2, tcp},
	}
	for _, tc := range tests {
		transport := "tcp"
		if strings.HasPrefix(tc.via(tc.m)[0], "--mysql-socket") {
			transport = "unix"
		}
		name := tc.test + "/ps=" + tc.ps + "/" + transport + "/" + tc.m.Server.Config().Auth
		t.Run(name, func(t *testing.T) {
			args := append([]string{tc.test, "--db-driver=mysql"}, tc.via(tc.m)...)
			args = append(args, "--mysql-user=sbtest", "--mysql-password=sbpw", "--mysql-db=sbtest", "--tables=1",
				"--table-size=10000", "--time=1", "--threads=2", "--db-ps-mode="+tc.ps, "run")
			out, err := runProgram(t, sb, args...)
			if err != nil {
				t.Fatalf("sysbench: %v\n%s", err, out)
			}
			tx := sysbenchTransactions.FindStringSubmatch(out)
			errs := sysbenchErrors.FindStringSubmatch(out)
			if tx == nil || errs == nil {
				t.Fatalf("sysbench output lacks transactions or errors:\n%s", out)
			}
			if n, _ := strconv.Atoi(tx[1]); n == 0 || errs[1] != "0" {
				t.Fatalf("sysbench: %s transactions, %s errors; want some and 0\n%s", tx[1], errs[1], out)
			}
		})
	}
	for _, m := range []*mysqltest.Mock[*Server]{native, sha2} {
		if errs := m.Errors(); len(errs) > 0 {
			t.Fatalf("mock ended connections with errors: %v", errs)
		}
	}
}

// python3 with PyMySQL: Debian's python3-pymysql lives in the system
// interpreter, which a pyenv shim earlier on PATH may hide.
func requirePyMySQL(t *testing.T) string {
	t.Helper()
	peer.Integration(t, "PyMySQL")
	candidates := []string{"/usr/bin/python3"}
	if p, err := peer.Find("python3"); err == nil {
		candidates = append(candidates, p)
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import pymysql").Run() == nil {
			return py
		}
	}
	peer.Unavailable(t, "peer: python3 with pymysql not found (apt-get install python3-pymysql)")
	return ""
}

const pymysqlScript = `
import sys, pymysql
kind, addr, auth = sys.argv[1], sys.argv[2], sys.argv[3]
kw = dict(unix_socket=addr) if kind == "unix" else dict(host="127.0.0.1", port=int(addr))
conn = pymysql.connect(user="py", password="pw", database="sbtest", **kw)
cur = conn.cursor()
cur.execute("SELECT c FROM sbtest1 WHERE id=%s", (5,))
rows = cur.fetchall()
cur.execute("SELECT 1, 'x', @@autocommit, NOW(), NULL")
one, x, autocommit, now, null = cur.fetchone()
import datetime
assert (one, x, autocommit, null) == (1, "x", 1, None) and type(one) is int and isinstance(now, datetime.datetime), (one, x, autocommit, now, null)
cur.execute("SHOW VARIABLES LIKE 'version'")
assert cur.fetchall() == (("version", "8.0.36-hoplat"),), "SHOW VARIABLES"
try:
    cur.execute("SELEC 1")
    print("parse error accepted")
except pymysql.err.ProgrammingError as e:
    assert e.args[0] == 1064, e
cur.execute("BEGIN")
conn.commit()
conn.ping(reconnect=False)
print("rows", len(rows), len(rows[0][0]))
conn.close()
try:
    pymysql.connect(user="py", password="bad", database="sbtest", **kw)
    print("wrong password accepted")
except pymysql.err.OperationalError as e:
    print("denied", e.args[0])
`

func TestPyMySQLAgainstMock(t *testing.T) {
	py := requirePyMySQL(t)
	for _, auth := range []string{wire.PluginNative, wire.PluginCachingSHA2} {
		m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "py", Password: "pw", Auth: auth, Rows: 3, RowBytes: 50})
		for _, tr := range [][2]string{{"tcp", tcpPort(m)}, {"unix", m.Sock}} {
			out, err := runProgram(t, py, "-c", pymysqlScript, tr[0], tr[1], auth)
			if err != nil {
				t.Fatalf("pymysql %s over %s: %v\n%s", auth, tr[0], err, out)
			}
			if want := "rows 3 50\ndenied 1045\n"; out != want {
				t.Fatalf("pymysql %s over %s printed %q, want %q", auth, tr[0], out, want)
			}
		}
	}
}

package relay_test

import (
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

// routeBackend is what a client test routes to: the mock, or real MariaDB.
type routeBackend struct {
	name           string
	ups            []sockets.Addr // primary first
	user, password string
	db             string
}

// routeBackends are the mock always and, outside -short and where it is
// installed, the package's shared MariaDB (as primary, and again at the
// same address as the replica: the routing, not replication, is tested).
func routeBackends(t *testing.T) []routeBackend {
	m := startMockBackend(t, "u", "pw")
	out := []routeBackend{{name: "mock", ups: []sockets.Addr{m.sockAddr(t), m.sockAddr(t)}, user: "u", password: "pw", db: "sbtest"}}
	if testing.Short() {
		return out
	}
	if _, err := peer.Find("mariadbd"); err != nil {
		if peer.Required() {
			t.Fatalf("%v (and %s is set)", err, peer.RequireEnv)
		}
		t.Logf("MariaDB rows skipped: %v", err)
		return out
	}
	db := mariadbtest.Shared(t)
	a, err := sockets.Parse("tcp:" + db.Addr)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, routeBackend{name: "mariadb", ups: []sockets.Addr{a, a}, user: db.User, password: db.Password, db: db.DB})
}

func (b routeBackend) router(t *testing.T, route relay.Route, ups int) *running {
	t.Helper()
	lb := newLogBuf()
	r, err := relay.NewUpstreams(listenAddr(t, "tcp"), b.ups[:ups], relay.Config{Route: route, Users: map[string]string{b.user: b.password}, Logf: lb.logf})
	if err != nil {
		t.Fatal(err)
	}
	rr := serveRelay(t, r)
	rr.log = lb
	return rr
}

// TestRouteClients: the stock mariadb client, go-sql-driver/mysql and
// PyMySQL log in through conn and rw, run a query and a prepared
// statement, and get ERR 1045 for a wrong password.
func TestRouteClients(t *testing.T) {
	for _, b := range routeBackends(t) {
		for _, route := range []relay.Route{relay.RouteConn, relay.RouteRW} {
			t.Run(b.name+"/"+string(route), func(t *testing.T) {
				rr := b.router(t, route, 2)
				host, port := rr.Addr().Host, strconv.Itoa(rr.Addr().Port)
				t.Run("go-sql-driver", func(t *testing.T) {
					db := openDB(t, rr.Addr(), b.user, b.password)
					stmt, err := db.Prepare("SELECT c FROM sbtest1 WHERE id=?")
					if err != nil {
						t.Fatal(err)
					}
					defer stmt.Close()
					var c string
					if err := stmt.QueryRow(7).Scan(&c); err != nil || len(c) != 119 {
						t.Fatalf("prepared: %q, %v", c, err)
					}
					var n int64
					if err := db.QueryRow("SELECT COUNT(*) FROM sbtest1 WHERE id BETWEEN 1 AND 10").Scan(&n); err != nil || n != 10 {
						t.Fatalf("query: %d, %v", n, err)
					}
					var me *gomysql.MySQLError
					if err := openDB(t, rr.Addr(), b.user, "wrong").Ping(); !errors.As(err, &me) || me.Number != 1045 {
						t.Errorf("wrong password: %v, want ERR 1045", err)
					}
				})
				t.Run("mariadb", func(t *testing.T) {
					client := peer.Require(t, "mariadb")
					args := []string{"--no-defaults", "--protocol=tcp", "-h", host, "-P", port, "-u", b.user, "-N", "-B"}
					// The mock runs no SQL PREPARE: the client's prepared
					// statement is MariaDB's alone.
					sql, want := "SELECT 6*7; SELECT c FROM sbtest1 WHERE id=3", 2
					if b.name == "mariadb" {
						sql, want = sql+"; PREPARE s FROM 'SELECT c FROM sbtest1 WHERE id=?'; SET @i=3; EXECUTE s USING @i; DEALLOCATE PREPARE s", 3
					}
					out, err := exec.Command(client, append(args, "-p"+b.password, "-e", sql, b.db)...).CombinedOutput()
					lines := strings.Fields(string(out))
					if err != nil || len(lines) != want || lines[0] != "42" || len(lines[1]) != 119 || lines[len(lines)-1] != lines[1] {
						t.Fatalf("mariadb: %v\n%s\nrelay log: %q", err, out, rr.log.all())
					}
					out, err = exec.Command(client, append(args, "-pwrong", "-e", "SELECT 1", b.db)...).CombinedOutput()
					if want := "ERROR 1045 (28000): Access denied for user '" + b.user + "'@'localhost' (using password: YES)"; err == nil || strings.TrimSpace(string(out)) != want {
						t.Errorf("mariadb, wrong password: %v %q, want %q", err, out, want)
					}
				})
				t.Run("pymysql", func(t *testing.T) {
					python := pymysqlPython(t)
					script := `import sys, pymysql
host, port, user, pw, db = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
c = pymysql.connect(host=host, port=port, user=user, password=pw, database=db)
cur = c.cursor()
cur.execute("SELECT 6*7")
print(cur.fetchone()[0])
cur.execute("SELECT c FROM sbtest1 WHERE id=%s", (4,))
print(len(cur.fetchone()[0]))
if sys.argv[6] == "mariadb":
    cur.execute("PREPARE s FROM 'SELECT ? + 1'")
    cur.execute("SET @x = 41")
    cur.execute("EXECUTE s USING @x")
    print(cur.fetchone()[0])
else:
    print(42)
c.close()
try:
    pymysql.connect(host=host, port=port, user=user, password="wrong", database=db)
except pymysql.err.OperationalError as e:
    print(e.args[0], e.args[1])
`
					out, err := exec.Command(python, "-c", script, host, port, b.user, b.password, b.db, b.name).CombinedOutput()
					want := "42\n119\n42\n1045 Access denied for user '" + b.user + "'@'localhost' (using password: YES)\n"
					if err != nil || string(out) != want {
						t.Fatalf("pymysql: %v\n%s\nwant\n%s", err, out, want)
					}
				})
			})
		}
	}
}

// pymysqlPython finds a python3 that imports pymysql (Debian's
// python3-pymysql), or skips.
func pymysqlPython(t *testing.T) string {
	t.Helper()
	peer.Integration(t, "PyMySQL")
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import pymysql").Run() == nil {
			return path
		}
	}
	peer.Unavailable(t, "no python3 with pymysql (install python3-pymysql)")
	return ""
}

// TestRouteSysbench runs sysbench's workloads through conn and rw against
// MariaDB, prepared and with --db-ps-mode=disable: no errors, no
// reconnects; rw sends oltp_point_select's selects to the replica.
func TestRouteSysbench(t *testing.T) {
	sysbench := peer.Require(t, "sysbench")
	db := mariadbtest.Shared(t)
	up, err := sockets.Parse("tcp:" + db.Addr)
	if err != nil {
		t.Fatal(err)
	}
	b := routeBackend{ups: []sockets.Addr{up, up}, user: db.User, password: db.Password, db: db.DB}
	for _, v := range []struct {
		route relay.Route
		ups   int
	}{{relay.RouteConn, 1}, {relay.RouteRW, 1}, {relay.RouteRW, 2}} {
		for _, workload := range []string{"oltp_point_select", "oltp_read_only", "oltp_read_only --skip_trx", "oltp_read_write", "oltp_write_only"} {
			for _, ps := range []string{"auto", "disable"} {
				name := string(v.route) + "-" + strconv.Itoa(v.ups) + "/" + strings.ReplaceAll(workload, " --", "-") + "/ps-" + ps
				t.Run(name, func(t *testing.T) {
					rr := b.router(t, v.route, v.ups)
					// Two writers may deadlock, which InnoDB answers with
					// ERR 1213 and sysbench counts as an ignored error:
					// the writes run on one thread, as the seed's runs did.
					threads := "2"
					if strings.Contains(workload, "write") {
						threads = "1"
					}
					args := append(strings.Fields(workload), "--db-driver=mysql", "--mysql-host="+rr.Addr().Host, "--mysql-port="+strconv.Itoa(rr.Addr().Port),
						"--mysql-user="+db.User, "--mysql-password="+db.Password, "--mysql-db="+db.DB,
						"--tables=1", "--table-size="+strconv.Itoa(db.TableSize), "--db-ps-mode="+ps,
						"--threads="+threads, "--events=300", "--time=0", "run")
					out, err := exec.Command(sysbench, args...).CombinedOutput()
					if err != nil {
						t.Fatalf("sysbench: %v\n%s\nrelay log: %q", err, out, rr.log.all())
					}
					if m := regexp.MustCompile(`transactions:\s+(\d+)`).FindSubmatch(out); m == nil || string(m[1]) != "300" {
						t.Fatalf("want 300 transactions:\n%s", out)
					}
					if !regexp.MustCompile(`ignored errors:\s+0 `).Match(out) || !regexp.MustCompile(`reconnects:\s+0 `).Match(out) {
						t.Fatalf("errors or reconnects:\n%s", out)
					}
					st := rr.Stats().Route
					if v.ups == 2 && workload == "oltp_point_select" && st.ToReplicas < 300 {
						t.Errorf("route stats %+v: want the point selects on the replica", st)
					}
					if v.ups == 1 && st.ToReplicas != 0 {
						t.Errorf("route stats %+v: one backend, no replica", st)
					}
				})
			}
		}
	}
}

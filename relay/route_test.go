package relay_test

import (
	"database/sql"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/responder/mock"
	"github.com/hoplat/hoplat/sockets"
)

// mockBackend is the embedded mock mysqld on loopback, which a test can
// kill (every connection and the listener closed, as a crashed server's
// kernel closes them) and bring back on the same port.
type mockBackend struct {
	srv  *mock.Server
	addr string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

func startMockBackend(t testing.TB, user, password string) *mockBackend {
	t.Helper()
	srv, err := mock.NewServer(mock.ServerConfig{User: user, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	m := &mockBackend{srv: srv, addr: "127.0.0.1:0"}
	m.listen(t)
	t.Cleanup(m.kill)
	return m
}

func (m *mockBackend) listen(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", m.addr)
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	m.ln, m.addr, m.conns = ln, ln.Addr().String(), map[net.Conn]bool{}
	m.mu.Unlock()
	m.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			m.mu.Lock()
			m.conns[c] = true
			m.mu.Unlock()
			m.wg.Go(func() {
				m.srv.ServeConn(c)
				c.Close()
				m.mu.Lock()
				delete(m.conns, c)
				m.mu.Unlock()
			})
		}
	})
}

// kill closes the listener and every connection, and waits for the
// serving goroutines.
func (m *mockBackend) kill() {
	m.mu.Lock()
	if m.ln != nil {
		m.ln.Close()
		m.ln = nil
	}
	for c := range m.conns {
		c.Close()
	}
	m.mu.Unlock()
	m.wg.Wait()
}

func (m *mockBackend) sockAddr(t testing.TB) sockets.Addr {
	a, err := sockets.Parse("tcp:" + m.addr)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// startRouter serves a router in mode over backends, with the one account
// user/password.
func startRouter(t testing.TB, route relay.Route, users map[string]string, backends ...*mockBackend) *running {
	t.Helper()
	var ups []sockets.Addr
	for _, b := range backends {
		ups = append(ups, b.sockAddr(t))
	}
	lb := newLogBuf()
	r, err := relay.NewUpstreams(listenAddr(t, "tcp"), ups, relay.Config{Route: route, Users: users, Logf: lb.logf, Stats: true})
	if err != nil {
		t.Fatal(err)
	}
	rr := serveRelay(t, r)
	rr.log = lb
	return rr
}

func openDB(t testing.TB, addr sockets.Addr, user, password string) *sql.DB {
	t.Helper()
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.DBName = user, password, "sbtest"
	cfg.Net, cfg.Addr = "tcp", addr.NetAddr()
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 10*time.Second, 10*time.Second, 10*time.Second
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	t.Cleanup(func() { db.Close() })
	return db
}

// TestRouteGoSQLDriver: go-sql-driver/mysql through database/sql logs in
// through both modes, pings, runs a query, a prepared statement and a
// transaction, gets 1045 for a wrong password; rw sends autocommit reads
// to the replica and the transaction to the primary.
func TestRouteGoSQLDriver(t *testing.T) {
	users := map[string]string{"u": "pw"}
	for _, route := range []relay.Route{relay.RouteConn, relay.RouteRW} {
		t.Run(string(route), func(t *testing.T) {
			primary, replica := startMockBackend(t, "u", "pw"), startMockBackend(t, "u", "pw")
			rr := startRouter(t, route, users, primary, replica)
			db := openDB(t, rr.Addr(), "u", "pw")
			db.SetMaxOpenConns(1)
			if err := db.Ping(); err != nil {
				t.Fatalf("Ping: %v", err)
			}
			var n int64
			if err := db.QueryRow("SELECT 1").Scan(&n); err != nil || n != 1 {
				t.Fatalf("SELECT 1: %d, %v", n, err)
			}
			stmt, err := db.Prepare("SELECT c FROM sbtest1 WHERE id=?")
			if err != nil {
				t.Fatal(err)
			}
			var c, c2 string
			for id := range 5 {
				if err := stmt.QueryRow(id + 1).Scan(&c); err != nil || len(c) != 119 {
					t.Fatalf("prepared point select %d: %q, %v", id+1, c, err)
				}
			}
			if err := db.QueryRow("SELECT c FROM sbtest1 WHERE id=5").Scan(&c2); err != nil || c2 != c {
				t.Fatalf("text point select: %q, %v; prepared gave %q", c2, err, c)
			}
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Stmt(stmt).QueryRow(3).Scan(&c); err != nil {
				t.Fatalf("in transaction: %v", err)
			}
			if _, err := tx.Exec("UPDATE sbtest1 SET k=k+1 WHERE id=3"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := stmt.Close(); err != nil {
				t.Fatal(err)
			}
			// An error passes and the session goes on.
			var me *gomysql.MySQLError
			if _, err := db.Exec("SELECT * FROM nosuchtable"); !errors.As(err, &me) || me.Number != 1146 {
				t.Errorf("missing table: %v, want ERR 1146", err)
			}
			if err := db.QueryRow("SELECT 2").Scan(&n); err != nil || n != 2 {
				t.Fatalf("SELECT 2 after an error: %d, %v", n, err)
			}
			bad := openDB(t, rr.Addr(), "u", "wrong")
			err = bad.Ping()
			if !errors.As(err, &me) || me.Number != 1045 || me.Message != "Access denied for user 'u'@'localhost' (using password: YES)" {
				t.Errorf("wrong password: %v, want MariaDB's ERR 1045", err)
			}
			st := rr.Stats().Route
			if st == nil || st.Mode != route || st.Statements < 10 {
				t.Fatalf("route stats %+v", st)
			}
			if route == relay.RouteRW {
				// 5 prepared and 1 text point select, SELECT 1 and 2, the
				// error's SELECT are autocommit reads; the transaction's
				// select, the update are the primary's.
				if st.ToReplicas < 8 || st.ToPrimary < 3 || st.Transactions != 1 || st.Prepares < 2 {
					t.Errorf("rw stats %+v: want reads on the replica, the transaction on the primary, a prepare on each", st)
				}
			} else if st.ToReplicas != 0 {
				t.Errorf("conn stats %+v: no replicas in conn", st)
			}
		})
	}
}

// TestRouteSessionReplay: a session statement runs on the primary and is
// replayed on the replica the first time a read goes there, with COM_PING,
// COM_CHANGE_USER and COM_INIT_DB between.
func TestRouteSessionReplay(t *testing.T) {
	users := map[string]string{"u": "pw"}
	primary, replica := startMockBackend(t, "u", "pw"), startMockBackend(t, "u", "pw")
	rr := startRouter(t, relay.RouteRW, users, primary, replica)
	c := dialClient(t, rr.Addr(), "u", "pw")
	for _, q := range []string{"SET NAMES utf8mb4", "USE sbtest", "SELECT 1"} {
		if _, err := c.Query(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := c.Ping(); err != nil {
		t.Fatal(err)
	}
	st := rr.Stats().Route
	if st.Replays != 2 || st.ToReplicas != 1 {
		t.Errorf("stats %+v: want the SET and USE replayed on the replica before its read", st)
	}
	if err := c.ChangeUser("u", "pw", "sbtest", wire.PluginNative, false); err != nil {
		t.Fatalf("COM_CHANGE_USER: %v", err)
	}
	if _, err := c.Query("SELECT c FROM sbtest1 WHERE id=1"); err != nil {
		t.Fatalf("after COM_CHANGE_USER: %v", err)
	}
	if err := c.ChangeUser("u", "nope", "sbtest", wire.PluginNative, false); mysqltest.AsServerError(err) == nil || mysqltest.AsServerError(err).Code != wire.ErAccessDenied {
		t.Errorf("COM_CHANGE_USER, wrong password: %v, want ERR 1045", err)
	}
}

func dialClient(t testing.TB, a sockets.Addr, user, password string) *mysql.Client {
	t.Helper()
	nc := dial(t, a)
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	c, err := mysql.Connect(nc, mysql.ClientConfig{User: user, Password: password, DB: "sbtest"}, false)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRouteBigPackets: a statement and a result row of more than 16 MiB
// cross the router split as the protocol splits them, and the session goes
// on.
func TestRouteBigPackets(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 2 × 17 MiB per mode")
	}
	users := map[string]string{"u": "pw"}
	for _, route := range []relay.Route{relay.RouteConn, relay.RouteRW} {
		t.Run(string(route), func(t *testing.T) {
			b := startMockBackend(t, "u", "pw")
			rr := startRouter(t, route, users, b)
			db := openDB(t, rr.Addr(), "u", "pw")
			big := strings.Repeat("x", wire.MaxPayload+100)
			var got string
			if err := db.QueryRow("SELECT '" + big + "'").Scan(&got); err != nil || got != big {
				t.Fatalf("17 MiB literal: %d bytes back, %v", len(got), err)
			}
			var n int64
			if err := db.QueryRow("SELECT 1").Scan(&n); err != nil || n != 1 {
				t.Fatalf("SELECT 1 after: %v", err)
			}
		})
	}
}

// TestRoutePrimaryDiesInTransaction: the primary dies while a client is in
// a transaction; its next statement gets an error within 2 s, and once the
// primary is back a new connection is served.
func TestRoutePrimaryDiesInTransaction(t *testing.T) {
	users := map[string]string{"u": "pw"}
	for _, route := range []relay.Route{relay.RouteConn, relay.RouteRW} {
		t.Run(string(route), func(t *testing.T) {
			primary := startMockBackend(t, "u", "pw")
			backends := []*mockBackend{primary}
			if route == relay.RouteRW {
				backends = append(backends, startMockBackend(t, "u", "pw"))
			}
			rr := startRouter(t, route, users, backends...)
			c := dialClient(t, rr.Addr(), "u", "pw")
			for _, q := range []string{"BEGIN", "SELECT c FROM sbtest1 WHERE id=1"} {
				if _, err := c.Query(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			primary.kill()
			start := time.Now()
			_, err := c.Query("UPDATE sbtest1 SET k=k+1 WHERE id=1")
			if err == nil {
				t.Fatal("statement after the primary died: no error")
			}
			// kill returns with the backend's sockets closed: the router
			// reads their end at once, with no timer between, and the
			// error is one loopback write and a few wake-ups away. The
			// 2 s this test promises is orders of magnitude above that
			// on any machine, under the race detector and beside a busy
			// loop per CPU alike; a router that waited for something
			// instead (a read timeout, a retry) would miss it.
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("error after %v, want within 2 s", d)
			}
			primary.listen(t)
			c2 := dialClient(t, rr.Addr(), "u", "pw")
			if _, err := c2.Query("UPDATE sbtest1 SET k=k+1 WHERE id=1"); err != nil {
				t.Fatalf("new connection once the primary is back: %v", err)
			}
		})
	}
}

// TestRouteNoAllocs: the router forwards a point select, text and
// prepared, and its response without allocating. AllocsPerRun counts the
// whole process: the client's events and the mock's answers allocate
// nothing either (their own tests say so).
func TestRouteNoAllocs(t *testing.T) {
	users := map[string]string{"u": "pw"}
	for _, route := range []relay.Route{relay.RouteConn, relay.RouteRW} {
		for _, ps := range []bool{false, true} {
			t.Run(string(route)+map[bool]string{false: "/query", true: "/execute"}[ps], func(t *testing.T) {
				primary, replica := startMockBackend(t, "u", "pw"), startMockBackend(t, "u", "pw")
				rr := startRouter(t, route, users, primary, replica)
				c := dialClient(t, rr.Addr(), "u", "pw")
				w, err := mysql.NewWorkload(mysql.WorkloadConfig{Command: mysql.CommandPointSelect, PS: ps})
				if err != nil {
					t.Fatal(err)
				}
				s, err := w.Prepare(c)
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				event := func() {
					if _, err := s.Event(rng); err != nil {
						t.Fatal(err)
					}
				}
				for range 100 {
					event()
				}
				if avg := testing.AllocsPerRun(1000, event); avg != 0 {
					t.Errorf("%.2f allocations per routed point select", avg)
				}
				if st := rr.Stats().Route; route == relay.RouteRW && st.ToReplicas < 1000 {
					t.Errorf("stats %+v: want the point selects on the replica", st)
				}
			})
		}
	}
}

// TestRouteRefusesBadClients: a client that sends garbage before or after
// login is dropped and the router goes on serving.
func TestRouteRefusesBadClients(t *testing.T) {
	users := map[string]string{"u": "pw"}
	b := startMockBackend(t, "u", "pw")
	rr := startRouter(t, relay.RouteRW, users, b)
	for _, junk := range [][]byte{
		{0xff, 0xff, 0xff, 0x01, 1, 2, 3},                      // a 16 MiB handshake claimed
		{0x01, 0x00, 0x00, 0x05, 0x00},                         // wrong sequence id
		{0x05, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00}, // a truncated handshake response
	} {
		nc := dial(t, rr.Addr())
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		var greeting [128]byte
		if _, err := nc.Read(greeting[:]); err != nil {
			t.Fatal(err)
		}
		nc.Write(junk)
		if _, err := io.ReadAll(nc); err != nil {
			t.Fatalf("junk %x: the router did not close: %v", junk, err)
		}
	}
	c := dialClient(t, rr.Addr(), "u", "pw")
	if err := c.Ping(); err != nil {
		t.Fatal(err)
	}
}

// FuzzRouteClient sends what a client may send, logged in or not, to an rw
// router in front of the mock: the router answers or drops the client,
// never hangs on it (the connection ends once the client has ended its
// side), and serves the next client.
func FuzzRouteClient(f *testing.F) {
	users := map[string]string{"u": "pw"}
	primary, replica := startMockBackend(f, "u", "pw"), startMockBackend(f, "u", "pw")
	rr := startRouter(f, relay.RouteRW, users, primary, replica)
	frame := func(seq byte, p ...byte) []byte {
		return append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), seq}, p...)
	}
	query := func(q string) []byte { return frame(0, append([]byte{wire.ComQuery}, q...)...) }
	f.Add(true, query("SELECT c FROM sbtest1 WHERE id=1"))
	f.Add(true, append(query("BEGIN"), query("SELECT 1")...))
	f.Add(true, frame(0, wire.ComStmtPrepare, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '?'))
	f.Add(true, append(frame(0, append([]byte{wire.ComStmtPrepare}, "SELECT c FROM sbtest1 WHERE id=?"...)...),
		frame(0, wire.ComStmtExecute, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)...))
	f.Add(true, frame(0, wire.ComStmtExecute, 9, 0, 0, 0, 0, 1, 0, 0, 0))
	f.Add(true, frame(0, wire.ComStmtClose, 1, 0, 0, 0))
	f.Add(true, frame(0, wire.ComStmtReset, 1))
	f.Add(true, frame(0, wire.ComChangeUser, 'u', 0, 3, 1, 2))
	f.Add(true, frame(0, wire.ComInitDB, 's'))
	f.Add(true, frame(0, wire.ComPing))
	f.Add(true, frame(3, wire.ComQuery, 'x'))
	f.Add(true, []byte{0xff, 0xff, 0xff, 0, wire.ComQuery})
	f.Add(false, frame(1, 0, 0, 0, 0))
	f.Add(false, frame(1, 0x0d, 0xa2, 0x3a, 0, 0, 0, 0, 1, 45))
	f.Fuzz(func(t *testing.T, login bool, input []byte) {
		nc := dial(t, rr.Addr())
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		if login {
			if _, err := mysql.Connect(nc, mysql.ClientConfig{User: "u", Password: "pw", DB: "sbtest"}, false); err != nil {
				t.Fatal(err)
			}
		} else {
			var greeting [256]byte
			if _, err := nc.Read(greeting[:]); err != nil {
				t.Fatal(err)
			}
		}
		nc.Write(input)
		nc.(interface{ CloseWrite() error }).CloseWrite()
		if _, err := io.ReadAll(nc); err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("the router did not end the connection: %v", err)
		}
		c := dialClient(t, rr.Addr(), "u", "pw")
		if err := c.Ping(); err != nil {
			t.Fatalf("next client: %v", err)
		}
	})
}

// TestRouteSessionLogBounded: a session that runs the same SETs again and
// again keeps a log of the distinct ones; a replica first used after them
// replays each once.
func TestRouteSessionLogBounded(t *testing.T) {
	users := map[string]string{"u": "pw"}
	primary, replica := startMockBackend(t, "u", "pw"), startMockBackend(t, "u", "pw")
	rr := startRouter(t, relay.RouteRW, users, primary, replica)
	c := dialClient(t, rr.Addr(), "u", "pw")
	for range 50 {
		for _, q := range []string{"SET autocommit=0", "SET autocommit=1"} {
			if _, err := c.Query(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := c.Query("SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if st := rr.Stats().Route; st.Replays != 2 || st.ToReplicas != 1 {
		t.Errorf("stats %+v: want 2 replays before the replica's read", st)
	}
}

// TestRouteStmtResetClose: COM_STMT_RESET and COM_STMT_CLOSE follow the
// statement's map onto every backend it was prepared on; an execute of a
// closed statement gets the router's ERR 1243.
func TestRouteStmtResetClose(t *testing.T) {
	users := map[string]string{"u": "pw"}
	primary, replica := startMockBackend(t, "u", "pw"), startMockBackend(t, "u", "pw")
	rr := startRouter(t, relay.RouteRW, users, primary, replica)
	c := dialClient(t, rr.Addr(), "u", "pw")
	st, err := c.Prepare("SELECT c FROM sbtest1 WHERE id=?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(3); err != nil { // on the replica, prepared there first
		t.Fatal(err)
	}
	pc := c.Conn()
	command := func(p ...byte) []byte {
		pc.ResetSeq()
		pc.WritePacket(p)
		if err := pc.Flush(); err != nil {
			t.Fatal(err)
		}
		if p[0] == wire.ComStmtClose {
			return nil
		}
		r, err := pc.ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := command(wire.ComStmtReset, 1, 0, 0, 0); len(r) == 0 || r[0] != wire.HeaderOK {
		t.Fatalf("COM_STMT_RESET: %x, want OK", r)
	}
	command(wire.ComStmtClose, 1, 0, 0, 0)
	r := command(wire.ComStmtExecute, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 0, 3, 0, 0, 0)
	if len(r) < 3 || r[0] != wire.HeaderErr || r[1] != 0xdb || r[2] != 0x04 {
		t.Fatalf("execute after close: %x, want ERR 1243", r)
	}
	if err := c.Ping(); err != nil {
		t.Fatal(err)
	}
	if s := rr.Stats().Route; s.Prepares != 2 || s.ToReplicas != 1 {
		t.Errorf("stats %+v: want the statement prepared on both backends", s)
	}
}

// TestRouteReplicaDown: with the replica gone, autocommit reads go to the
// primary: the session that used the replica and new sessions alike.
func TestRouteReplicaDown(t *testing.T) {
	users := map[string]string{"u": "pw"}
	primary, replica := startMockBackend(t, "u", "pw"), startMockBackend(t, "u", "pw")
	rr := startRouter(t, relay.RouteRW, users, primary, replica)
	c := dialClient(t, rr.Addr(), "u", "pw")
	if _, err := c.Query("SELECT c FROM sbtest1 WHERE id=1"); err != nil {
		t.Fatal(err)
	}
	replica.kill()
	rr.log.waitFor(t, "upstream "+replica.addr)
	for _, cl := range []*mysql.Client{c, dialClient(t, rr.Addr(), "u", "pw")} {
		for range 3 {
			if _, err := cl.Query("SELECT c FROM sbtest1 WHERE id=2"); err != nil {
				t.Fatalf("read with the replica down: %v", err)
			}
		}
	}
	if st := rr.Stats().Route; st.ToReplicas != 1 || st.ToPrimary != 6 {
		t.Errorf("stats %+v: want the reads after the replica went on the primary", st)
	}
}

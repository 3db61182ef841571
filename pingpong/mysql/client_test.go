package mysql

import (
	"bytes"
	"math/rand/v2"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
	"github.com/hoplat/hoplat/responder/mock"
)

func TestClientAgainstMock(t *testing.T) {
	for _, auth := range []string{wire.PluginNative, wire.PluginCachingSHA2} {
		for _, network := range []string{"tcp", "unix"} {
			t.Run(auth+"/"+network, func(t *testing.T) {
				m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{User: "bench", Password: "secret", Auth: auth, Rows: 3})
				addr := m.TCPAddr
				if network == "unix" {
					addr = m.Sock
				}
				cfg := ClientConfig{User: "bench", Password: "secret", DB: "sbtest"}
				// Twice: caching_sha2's first login takes the full path, the
				// second the fast path.
				for range 2 {
					c := mysqltest.MustDial(t, Connect, network, addr, cfg)
					if err := c.Ping(); err != nil {
						t.Fatal(err)
					}
					n, err := c.Query("SELECT c FROM sbtest1 WHERE id=1")
					if err != nil || n != 3 {
						t.Fatalf("Query = %d, %v; want 3 rows", n, err)
					}
					st, err := c.Prepare("SELECT c FROM sbtest1 WHERE id=?")
					if err != nil {
						t.Fatal(err)
					}
					if n, err := st.Exec(7); err != nil || n != 3 {
						t.Fatalf("Exec = %d, %v; want 3 rows", n, err)
					}
					if err := st.Close(); err != nil {
						t.Fatal(err)
					}
					if err := c.Quit(); err != nil {
						t.Fatal(err)
					}
				}
				_, err := mysqltest.Dial(t, Connect, network, addr, ClientConfig{User: "bench", Password: "wrong"})
				if se := mysqltest.AsServerError(err); se == nil || se.Code != wire.ErAccessDenied {
					t.Fatalf("wrong password: %v, want ServerError 1045", err)
				}
			})
		}
	}
}

func TestWorkloadsAgainstMock(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{User: "u", Password: "p"})
	for _, cmd := range Commands {
		for _, ps := range []bool{false, true} {
			c := mysqltest.MustDial(t, Connect, "tcp", m.TCPAddr, ClientConfig{User: "u", Password: "p", DB: "sbtest"})
			w, s := mustPrepare(t, c, WorkloadConfig{Command: cmd, PS: ps, Query: "SELECT 42"})
			rng := rand.New(rand.NewPCG(1, 2))
			for range 20 {
				q, err := s.Event(rng)
				if err != nil || q != w.QueriesPerEvent() {
					t.Fatalf("%s ps=%v: Event = %d, %v", cmd, ps, q, err)
				}
			}
			s.Close()
			c.Quit()
		}
	}
}

// TestAuthSwitchByMock offers the plugin the mock does not use; the mock
// must switch the client, with both plugins on either side.
func TestAuthSwitchByMock(t *testing.T) {
	for _, tc := range []struct{ server, offer string }{
		{wire.PluginNative, wire.PluginCachingSHA2},
		{wire.PluginCachingSHA2, wire.PluginNative},
	} {
		m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{User: "u", Password: "p", Auth: tc.server})
		for _, network := range []string{"tcp", "unix"} {
			addr := m.TCPAddr
			if network == "unix" {
				addr = m.Sock
			}
			c, err := connectOffering(mysqltest.DialRaw(t, network, addr), ClientConfig{User: "u", Password: "p"}, network == "unix", tc.offer)
			if err != nil {
				t.Fatalf("server %s, client offers %s over %s: %v", tc.server, tc.offer, network, err)
			}
			if err := c.Ping(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestClientClassicEOF runs every workload against a mock that does not
// offer CLIENT_DEPRECATE_EOF, as older servers and some proxies do, so
// result sets carry classic EOF packets.
func TestClientSeesMariaDBFlavour(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{Version: "5.5.5-10.11.19-MariaDB-hoplat"})
	c := mysqltest.MustDial(t, Connect, "unix", m.Sock, ClientConfig{})
	if !c.MariaDB() || c.ServerVersion() != "5.5.5-10.11.19-MariaDB-hoplat" {
		t.Fatalf("MariaDB() = %v, version %q", c.MariaDB(), c.ServerVersion())
	}
	m2 := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{})
	if c := mysqltest.MustDial(t, Connect, "tcp", m2.TCPAddr, ClientConfig{}); c.MariaDB() {
		t.Fatal("MySQL-flavoured greeting read as MariaDB")
	}
}

func TestWorkloadConfigErrors(t *testing.T) {
	for _, cfg := range []WorkloadConfig{
		{Command: "pong"},
		{Command: CommandQuery},
		{Command: CommandPointSelect, TableSize: -1},
	} {
		if _, err := NewWorkload(cfg); err == nil {
			t.Errorf("NewWorkload(%+v) accepted", cfg)
		}
	}
	w, err := NewWorkload(WorkloadConfig{Command: CommandOLTPRO})
	if err != nil {
		t.Fatal(err)
	}
	if c := w.Config(); c.TableSize != 10000 || c.RangeSize != 100 || c.Table != "sbtest1" || w.QueriesPerEvent() != 16 {
		t.Fatalf("defaults: %+v, %d queries per event", c, w.QueriesPerEvent())
	}
	// A user query with placeholders cannot be bound by the workload.
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{})
	c := mysqltest.MustDial(t, Connect, "tcp", m.TCPAddr, ClientConfig{DB: "sbtest"})
	w, _ = NewWorkload(WorkloadConfig{Command: CommandQuery, PS: true, Query: "SELECT c FROM sbtest1 WHERE id=?"})
	if _, err := w.Prepare(c); err == nil || !strings.Contains(err.Error(), "server counts 1 parameters") {
		t.Fatalf("placeholder query: %v", err)
	}
}

// recordingConn keeps what the client writes.
type recordingConn struct {
	net.Conn
	sent bytes.Buffer
}

func (r *recordingConn) Write(b []byte) (int, error) {
	r.sent.Write(b)
	return r.Conn.Write(b)
}

// TestOLTPReadOnlyStatements checks the text of one oltp-ro event against
// sysbench's oltp_read_only transaction.
func TestOLTPReadOnlyStatements(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{})
	rc := &recordingConn{Conn: mysqltest.DialRaw(t, "tcp", m.TCPAddr)}
	c, err := Connect(rc, ClientConfig{DB: "sbtest"}, false)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := NewWorkload(WorkloadConfig{Command: CommandOLTPRO, TableSize: 500, RangeSize: 10})
	s, _ := w.Prepare(c)
	rc.sent.Reset()
	if _, err := s.Event(rand.New(rand.NewPCG(9, 9))); err != nil {
		t.Fatal(err)
	}
	r := wire.NewPacketConn(wiretest.NewPipe(rc.sent.Bytes()))
	var got []string
	for {
		r.ResetSeq()
		p, err := r.ReadPacket()
		if err != nil {
			break
		}
		if p[0] != wire.ComQuery {
			t.Fatalf("command 0x%02x, want COM_QUERY", p[0])
		}
		got = append(got, string(p[1:]))
	}
	want := []string{`BEGIN`}
	for range 10 {
		want = append(want, `SELECT c FROM sbtest1 WHERE id=(\d+)`)
	}
	want = append(want,
		`SELECT c FROM sbtest1 WHERE id BETWEEN (\d+) AND (\d+)`,
		`SELECT SUM\(k\) FROM sbtest1 WHERE id BETWEEN (\d+) AND (\d+)`,
		`SELECT c FROM sbtest1 WHERE id BETWEEN (\d+) AND (\d+) ORDER BY c`,
		`SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN (\d+) AND (\d+) ORDER BY c`,
		`COMMIT`)
	if len(got) != len(want) {
		t.Fatalf("sent %d statements, want %d: %q", len(got), len(want), got)
	}
	for i, re := range want {
		m := regexp.MustCompile("^" + re + "$").FindStringSubmatch(got[i])
		if m == nil {
			t.Fatalf("statement %d = %q, want %s", i, got[i], re)
		}
		var ids []int
		for _, v := range m[1:] {
			n, _ := strconv.Atoi(v)
			ids = append(ids, n)
		}
		if len(ids) > 0 && (ids[0] < 1 || ids[0] > 500) {
			t.Errorf("statement %q: id outside 1..500", got[i])
		}
		if len(ids) == 2 && ids[1]-ids[0] != 9 {
			t.Errorf("statement %q: range of %d ids, want 10", got[i], ids[1]-ids[0]+1)
		}
	}
}

package mock

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// TestServerRejectsGarbage: a desynchronised or garbage connection gets an
// ERR and is closed, while another connection keeps working.
func TestServerRejectsGarbage(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p"})
	good := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{User: "u", Password: "p"})

	tests := []struct {
		name string
		send []byte
		code uint16
	}{
		{"out of order", []byte{1, 0, 0, 3, wire.ComPing}, wire.ErNetPacketsOutOfOrder},
		{"unknown command", []byte{1, 0, 0, 0, 0x0F}, wire.ErUnknownCommand},
		{"execute unknown statement", []byte{10, 0, 0, 0, wire.ComStmtExecute, 9, 0, 0, 0, 0, 1, 0, 0, 0}, wire.ErUnknownStmtHandler},
		{"execute truncated", []byte{3, 0, 0, 0, wire.ComStmtExecute, 9, 0}, wire.ErWrongArguments},
	}
	for _, tc := range tests {
		nc := mysqltest.DialRaw(t, "tcp", m.TCPAddr)
		c, err := mysql.Connect(nc, mysql.ClientConfig{User: "u", Password: "p"}, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nc.Write(tc.send); err != nil {
			t.Fatal(err)
		}
		c.Conn().Seq = 1
		p, err := c.Conn().ReadPacket()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		se := mysqltest.AsServerError(wire.ParseErr(p))
		if se == nil || se.Code != tc.code {
			t.Fatalf("%s: got %v, want ERR %d", tc.name, wire.ParseErr(p), tc.code)
		}
		if err := good.Ping(); err != nil {
			t.Fatalf("after %s on another connection: %v", tc.name, err)
		}
		if tc.code == wire.ErNetPacketsOutOfOrder {
			// The server closes this one; its error is recorded by then.
			io.Copy(io.Discard, nc)
		}
	}
	var outOfOrder bool
	for _, err := range m.Errors() {
		outOfOrder = outOfOrder || errors.Is(err, wire.ErrOutOfOrder)
	}
	if !outOfOrder {
		t.Fatalf("server errors %v: want the out-of-order connection closed with ErrOutOfOrder", m.Errors())
	}
}

func TestServerMetadataQueries(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p", Rows: 4})
	c := mysqltest.MustDial(t, mysql.Connect, "unix", m.Sock, mysql.ClientConfig{User: "u", Password: "p", DB: "sbtest"})
	tests := []struct {
		sql  string
		rows int
	}{
		{"select @@version_comment limit 1", 1},
		{"SELECT @@session.auto_increment_increment AS a, @@max_allowed_packet", 1},
		{"SELECT DATABASE()", 1},
		{"SHOW WARNINGS", 0},
		{"show databases", 2},
		{"SHOW VARIABLES LIKE 'sql_mode'", 1},
		{"SHOW VARIABLES LIKE 'no_such%'", 0},
		{"/* ping */ SELECT 1", 1},
		{"select c from sbtest1 where id=1", 4},
		{"BEGIN", 0},
		{"SET autocommit=1", 0},
		{"USE sbtest", 0},
		{"COMMIT", 0},
	}
	if _, err := c.Query("  "); mysqltest.AsServerError(err) == nil || mysqltest.AsServerError(err).Code != 1065 {
		t.Errorf("empty query: %v, want ERR 1065", err)
	}
	for _, tc := range tests {
		if n, err := c.Query(tc.sql); err != nil || n != tc.rows {
			t.Errorf("%q: %d rows, %v; want %d", tc.sql, n, err, tc.rows)
		}
	}
}

// TestClientTLSRequired: a server that demands TLS (ERR 3159, MySQL's
// require_secure_transport) gets a clear error, not a protocol puzzle.
func TestClientTLSRequired(t *testing.T) {
	w := wire.NewPacketConn(nil)
	w.WritePacket(wiretest.Unhex(t, wiretest.CapturedGreeting))
	w.Seq = 2
	w.WritePacket(wire.AppendErr(nil, wire.ErSecureTransportNeeded, "HY000", "Connections using insecure transport are prohibited while --require_secure_transport=ON."))
	_, err := mysql.Connect(wiretest.NewPipe(w.Wbuf), mysql.ClientConfig{User: "u", Password: "pw"}, false)
	if err == nil || !strings.Contains(err.Error(), "server requires TLS") {
		t.Fatalf("err = %v, want one saying the server requires TLS", err)
	}
	if se := mysqltest.AsServerError(err); se == nil || se.Code != wire.ErSecureTransportNeeded {
		t.Fatalf("err = %v, want the ServerError wrapped", err)
	}
}

// TestClientRefusesClearPassword: a switch to mysql_clear_password over TCP
// would expose the password; the client refuses.
func TestClientRefusesClearPassword(t *testing.T) {
	w := wire.NewPacketConn(nil)
	w.WritePacket(wiretest.Unhex(t, wiretest.CapturedGreeting))
	w.Seq = 2
	w.WritePacket(wire.AppendAuthSwitch(nil, wire.PluginClear, nil))
	rw := wiretest.NewPipe(w.Wbuf)
	_, err := mysql.Connect(rw, mysql.ClientConfig{User: "u", Password: "topsecret"}, false)
	if err == nil || !strings.Contains(err.Error(), "mysql_clear_password") {
		t.Fatalf("err = %v, want a refusal naming mysql_clear_password", err)
	}
	if bytes.Contains(rw.Out.Bytes(), []byte("topsecret")) {
		t.Fatal("password sent in clear")
	}
}

func TestConnectAllocs(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p"})
	var ncs []net.Conn
	t.Cleanup(func() {
		for _, nc := range ncs {
			nc.Close()
		}
	})
	allocs := testing.AllocsPerRun(20, func() {
		nc, err := net.Dial("tcp", m.TCPAddr)
		if err != nil {
			t.Fatal(err)
		}
		ncs = append(ncs, nc)
		if _, err := mysql.Connect(nc, mysql.ClientConfig{User: "u", Password: "p"}, false); err != nil {
			t.Fatal(err)
		}
	})
	// Both ends' 16 KiB buffers, the handshake's few strings, the socket:
	// a few dozen, not hundreds.
	if allocs > 64 {
		t.Fatalf("%.0f allocations per Connect (client, server and net.Dial together), want at most 64", allocs)
	}
}

func TestConfigsRedactPassword(t *testing.T) {
	for _, s := range []string{
		fmt.Sprintf("%v %+v %#v %s", mysql.ClientConfig{User: "u", Password: "hunter2"}, mysql.ClientConfig{Password: "hunter2"}, mysql.ClientConfig{Password: "hunter2"}, mysql.ClientConfig{Password: "hunter2"}),
		fmt.Sprintf("%v %+v %#v", ServerConfig{Password: "hunter2"}, ServerConfig{Password: "hunter2"}, &ServerConfig{Password: "hunter2"}),
	} {
		if strings.Contains(s, "hunter2") || !strings.Contains(s, "<redacted>") {
			t.Errorf("config printed as %q", s)
		}
	}
}

func TestServerServiceHook(t *testing.T) {
	var calls atomic.Int32
	m := mysqltest.StartMock(t, NewServer, ServerConfig{Service: func() { calls.Add(1) }})
	c := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{DB: "sbtest"})
	st, err := c.Prepare("SELECT c FROM sbtest1 WHERE id=?")
	if err != nil {
		t.Fatal(err)
	}
	c.Ping()
	c.Query("SELECT 1")
	st.Exec(1)
	c.Query("COMMIT")
	// The hook runs on the server goroutine before each reply, so the
	// client has seen its effect once the reply arrives.
	if n := calls.Load(); n != 3 {
		t.Fatalf("Service ran %d times for 3 statements and a ping, want 3", n)
	}
}

func TestNewServerRejectsBadConfig(t *testing.T) {
	for _, cfg := range []ServerConfig{
		{Auth: "client_ed25519"},
		{Rows: -1},
		{RowBytes: -5},
		{Rows: 1 << 20, RowBytes: 1000},
	} {
		if _, err := NewServer(cfg); err == nil {
			t.Errorf("NewServer(%v) accepted", cfg)
		}
	}
	s, err := NewServer(ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Config(); c.Auth != wire.PluginNative || c.Rows != 0 || c.RowBytes != 0 || c.Tables != 1 || c.TableSize != 10000 || c.Version == "" {
		t.Fatalf("defaults: %v", c)
	}
}

// TestLargeRowsSplit: a row wider than 16 MiB is split on the wire and
// reassembled by the client.
func TestLargeRowsSplit(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{Rows: 1, RowBytes: wire.MaxPayload})
	c := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{DB: "sbtest"})
	if n, err := c.Query("SELECT c FROM sbtest1 WHERE id=1"); err != nil || n != 1 {
		t.Fatalf("%d rows, %v", n, err)
	}
	if err := c.Ping(); err != nil {
		t.Fatal(err)
	}
}

package mock

import (
	"bytes"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/wiretest"
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// FuzzServerCommands feeds an authenticated mock connection arbitrary
// command bytes: every malformed command gets an ERR or ends the
// connection, never a panic.
func FuzzServerCommands(f *testing.F) {
	f.Add(pointSelectStream(2, true))
	f.Add(pointSelectStream(2, false))
	w := wire.NewPacketConn(nil)
	for _, cmd := range [][]byte{
		{wire.ComPing}, {wire.ComInitDB, 'd'}, append([]byte{wire.ComQuery}, "SELECT @@version_comment LIMIT 1"...),
		append([]byte{wire.ComQuery}, "SHOW WARNINGS"...), append([]byte{wire.ComStmtPrepare}, "SELECT ? ?"...),
		{wire.ComStmtExecute, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, wire.TypeVarString, 0, 2, 'a', 'b', wire.TypeLongLong, 0},
		{wire.ComStmtReset, 2, 0, 0, 0}, {wire.ComStmtClose, 2, 0, 0, 0}, {0x0F}, {wire.ComQuit},
	} {
		w.ResetSeq()
		w.WritePacket(cmd)
	}
	f.Add(w.Wbuf)
	s, err := NewServer(ServerConfig{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rw := wiretest.NewPipe(in)
		c := &serverConn{s: s, pc: wire.NewPacketConn(rw), rw: rw, deprecateEOF: len(in)%2 == 0}
		c.pc.MaxMessage = 1 << 20
		c.commandLoop()
	})
}

// FuzzServeConn feeds the whole connection phase arbitrary client bytes.
func FuzzServeConn(f *testing.F) {
	w := wire.NewPacketConn(nil)
	w.Seq = 1
	w.WritePacket(wiretest.Unhex(f, wiretest.CapturedResponse))
	f.Add(w.Wbuf)
	s, err := NewServer(ServerConfig{User: "bench", Password: "secret"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rw := wiretest.NewPipe(in)
		s.ServeConn(rw)
		if bytes.Contains(rw.Out.Bytes(), []byte("secret")) {
			t.Fatal("server wrote the password")
		}
	})
}

// FuzzServePreLogin feeds a served connection arbitrary client bytes from
// its first byte, under the server's real limits: before login nothing
// grows the read buffer past what the pre-login limit needs, and after it
// the buffer stays within twice the bytes that arrived.
func FuzzServePreLogin(f *testing.F) {
	login := func(cmds ...[]byte) []byte {
		w := wire.NewPacketConn(nil)
		w.Seq = 1
		r := wire.HandshakeResponse{Caps: wire.ClientWantedCaps | wire.CapConnectWithDB | wire.CapConnectAttrs, User: []byte("u"), Db: []byte("d"), Plugin: []byte(wire.PluginNative)}
		b := wire.AppendHandshakeResponse(nil, &r)
		w.WritePacket(append(b, 4, 1, 'k', 1, 'v'))
		for _, cmd := range cmds {
			w.ResetSeq()
			w.WritePacket(cmd)
		}
		return w.Wbuf
	}
	f.Add(login())
	f.Add([]byte{0xff, 0xff, 0xff, 1, 0})
	f.Add([]byte{0x00, 0x20, 0x00, 1, 0})
	f.Add([]byte{0x01, 0x20, 0x00, 1, 0})
	f.Add(append(login(), 0xff, 0xff, 0xff, 0, wire.ComQuery))
	f.Add(login([]byte{wire.ComChangeUser, 'u', 0, 0, 'd', 0, 45, 0, 'x', 0}, []byte{wire.ComResetConnection}, []byte{wire.ComStatistics}))
	f.Add(login(append([]byte{wire.ComQuery}, "SELECT 1+1, @@version, NOW(), 'x' LIMIT 1"...), append([]byte{wire.ComQuery}, "SHOW VARIABLES LIKE 'a%'"...)))
	s, err := NewServer(ServerConfig{User: "u", MaxAllowedPacket: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c := s.newServerConn(wiretest.NewPipe(in), false)
		c.run()
		limit := max(serverReadBuf, 4+handshakeLimit)
		if c.authed {
			limit = max(limit, 2*(len(in)+4))
		}
		if len(c.pc.Rbuf) > limit {
			t.Fatalf("read buffer of %d bytes from %d bytes of input (authenticated: %v)", len(c.pc.Rbuf), len(in), c.authed)
		}
	})
}

// FuzzEvalSelect feeds the expression evaluator and SHOW arbitrary SQL: an
// answer or mysqld's error, never a panic.
func FuzzEvalSelect(f *testing.F) {
	for _, q := range []string{"SELECT 1", "select 1+1 as x", "SELECT 'a''b', \"c\"", "SELECT @@session.autocommit, @@version LIMIT 1",
		"SELECT NOW(), CONNECTION_ID(), USER(), DATABASE()", "(SELECT -1.5 * 2 DIV 0)", "/*!40101 SELECT 5 */", "SELECT 1 = 1, NOT 0",
		"SHOW VARIABLES LIKE 'max\\_%'", "SHOW /*!40003 GLOBAL */ STATUS", "SHOW DATABASES", "SHOW FULL TABLES LIKE 'sb%'",
		"SELECT SLEEP(0.5)", "SELECT 1 UNION ALL SELECT 'a' UNION SELECT 1", "SELECT 1, 2 UNION SELECT 3"} {
		f.Add(q)
	}
	s, err := NewServer(ServerConfig{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		rw := wiretest.NewPipe(nil)
		c := &serverConn{s: s, pc: wire.NewPacketConn(rw), rw: rw, db: "d"}
		switch sqlread.Classify([]byte(sql)).Class {
		case sqlread.ClassShow:
			c.showQuery([]byte(sql))
			return
		case sqlread.ClassUse:
			useTarget([]byte(sql))
			return
		}
		ctx := &evalContext{c: c, sleep: func(time.Duration) {}}
		if sqlread.Classify([]byte(sql)).Class == sqlread.ClassUnion {
			c.unionQueryIn([]byte(sql), ctx)
			return
		}
		if r, serr := evalSelect([]byte(sql), ctx); serr == nil {
			if len(r.cols) != len(r.row) {
				t.Fatalf("%d columns, %d values", len(r.cols), len(r.row))
			}
			r.encode()
		}
	})
}

// FuzzClient feeds Connect and a query arbitrary server bytes.

package mysql

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Every decoder of peer bytes gets a fuzz target: malformed input must give
// an error, never a panic or an allocation beyond what the input declares
// and the limits allow.

func FuzzReadPacket(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0x0e})
	f.Add([]byte{0xff, 0xff, 0xff, 0, 1, 2})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{1, 0, 0, 3, 0x0e})
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 20
		r := newPacketConn(&pipeRW{in: bytes.NewReader(in)})
		r.maxMessage = limit
		for {
			p, err := r.readPacket()
			if err != nil {
				return
			}
			if len(p) > limit || len(p) > len(in) {
				t.Fatalf("payload of %d bytes from %d bytes of input", len(p), len(in))
			}
		}
	})
}

func FuzzParseGreeting(f *testing.F) {
	f.Add(unhex(f, capturedGreeting))
	g, _ := parseGreeting(unhex(f, capturedGreeting))
	g.caps |= capLongPassword
	f.Add(appendGreeting(nil, &g))
	f.Add([]byte{10, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		g, err := parseGreeting(in)
		if err == nil && g.caps&capSecureConnection == 0 {
			t.Fatal("greeting without SECURE_CONNECTION accepted")
		}
		if err != nil && !strings.HasPrefix(err.Error(), "mysql: decode greeting: ") {
			t.Fatalf("error %q does not name the packet", err)
		}
	})
}

func FuzzParseHandshakeResponse(f *testing.F) {
	f.Add(unhex(f, capturedResponse))
	r := handshakeResponse{caps: clientWantedCaps | capConnectWithDB | capConnectAttrs, user: []byte("u"), auth: []byte("x"), db: []byte("db"), plugin: []byte(pluginNative)}
	b := appendHandshakeResponse(nil, &r)
	f.Add(append(b, 4, 1, 'k', 1, 'v'))
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := parseHandshakeResponse(in)
		if err == nil && len(r.user)+len(r.auth)+len(r.db)+len(r.plugin) > len(in) {
			t.Fatal("fields longer than the packet")
		}
	})
}

func FuzzParseOKErr(f *testing.F) {
	f.Add(unhex(f, "00 00 00 0200 0000"))
	f.Add(unhex(f, "fe 00 00 0200 0000"))
	f.Add(unhex(f, "fe 0000 0200"))
	f.Add(unhex(f, "ff 1704 233038533031 556e6b6e6f776e20636f6d6d616e64"))
	f.Add(unhex(f, "00 01000000 0100 0100 00 0000"))
	f.Add(appendAuthSwitch(nil, pluginNative, []byte("01234567890123456789")))
	f.Fuzz(func(t *testing.T, in []byte) {
		parseOK(in)
		parseEOF(in)
		parseStmtPrepareOK(in)
		parseAuthSwitch(in)
		if len(in) > 0 && in[0] == headerErr {
			err := parseErr(in)
			if se := asServerError(err); se != nil && len(se.Message) > len(in) {
				t.Fatal("message longer than the packet")
			}
		}
	})
}

func FuzzParseColumnDef(f *testing.F) {
	f.Add(unhex(f, "03646566 00 00 00 01 31 00 0c 3f00 01000000 03 8100 00 0000"))
	s, _ := NewServer(ServerConfig{})
	f.Add(s.colDef)
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := parseColumnDef(in)
		if err != nil {
			return
		}
		// Whatever parses re-encodes and parses to the same definition.
		c2, err := parseColumnDef(appendColumnDef(nil, &c))
		if err != nil || !bytes.Equal(c.name, c2.name) || c.colType != c2.colType || c.length != c2.length {
			t.Fatalf("round trip: %+v -> %+v, %v", c, c2, err)
		}
	})
}

func FuzzCheckRow(f *testing.F) {
	f.Add(byte(1), []byte{typeString}, unhex(f, "01 31"))
	f.Add(byte(2), []byte{typeLong, typeLongLong}, unhex(f, "00 00 01000000 0200000000000000"))
	f.Add(byte(1), []byte{typeDateTime}, unhex(f, "00 00 04 e8070b1d"))
	f.Add(byte(2), []byte{typeVarString, typeNull}, unhex(f, "fb fc0100 61"))
	f.Fuzz(func(t *testing.T, cols byte, types []byte, row []byte) {
		checkTextRow(row, int(cols))
		checkBinaryRow(row, types)
	})
}

// FuzzServerCommands feeds an authenticated mock connection arbitrary
// command bytes: every malformed command gets an ERR or ends the
// connection, never a panic.
func FuzzServerCommands(f *testing.F) {
	f.Add(pointSelectStream(2, true))
	f.Add(pointSelectStream(2, false))
	w := newPacketConn(nil)
	for _, cmd := range [][]byte{
		{comPing}, {comInitDB, 'd'}, append([]byte{comQuery}, "SELECT @@version_comment LIMIT 1"...),
		append([]byte{comQuery}, "SHOW WARNINGS"...), append([]byte{comStmtPrepare}, "SELECT ? ?"...),
		{comStmtExecute, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, typeVarString, 0, 2, 'a', 'b', typeLongLong, 0},
		{comStmtReset, 2, 0, 0, 0}, {comStmtClose, 2, 0, 0, 0}, {0x0F}, {comQuit},
	} {
		w.resetSeq()
		w.writePacket(cmd)
	}
	f.Add(w.wbuf)
	s, err := NewServer(ServerConfig{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rw := &pipeRW{in: bytes.NewReader(in)}
		c := &serverConn{s: s, pc: newPacketConn(rw), rw: rw, deprecateEOF: len(in)%2 == 0}
		c.pc.maxMessage = 1 << 20
		c.commandLoop()
	})
}

// FuzzServeConn feeds the whole connection phase arbitrary client bytes.
func FuzzServeConn(f *testing.F) {
	w := newPacketConn(nil)
	w.seq = 1
	w.writePacket(unhex(f, capturedResponse))
	f.Add(w.wbuf)
	s, err := NewServer(ServerConfig{User: "bench", Password: "secret"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rw := &pipeRW{in: bytes.NewReader(in)}
		s.ServeConn(rw)
		if bytes.Contains(rw.out.Bytes(), []byte("secret")) {
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
		w := newPacketConn(nil)
		w.seq = 1
		r := handshakeResponse{caps: clientWantedCaps | capConnectWithDB | capConnectAttrs, user: []byte("u"), db: []byte("d"), plugin: []byte(pluginNative)}
		b := appendHandshakeResponse(nil, &r)
		w.writePacket(append(b, 4, 1, 'k', 1, 'v'))
		for _, cmd := range cmds {
			w.resetSeq()
			w.writePacket(cmd)
		}
		return w.wbuf
	}
	f.Add(login())
	f.Add([]byte{0xff, 0xff, 0xff, 1, 0})
	f.Add([]byte{0x00, 0x20, 0x00, 1, 0})
	f.Add([]byte{0x01, 0x20, 0x00, 1, 0})
	f.Add(append(login(), 0xff, 0xff, 0xff, 0, comQuery))
	f.Add(login([]byte{comChangeUser, 'u', 0, 0, 'd', 0, 45, 0, 'x', 0}, []byte{comResetConnection}, []byte{comStatistics}))
	f.Add(login(append([]byte{comQuery}, "SELECT 1+1, @@version, NOW(), 'x' LIMIT 1"...), append([]byte{comQuery}, "SHOW VARIABLES LIKE 'a%'"...)))
	s, err := NewServer(ServerConfig{User: "u", MaxAllowedPacket: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c := s.newServerConn(&pipeRW{in: bytes.NewReader(in)}, false)
		c.run()
		limit := max(serverReadBuf, 4+handshakeLimit)
		if c.authed {
			limit = max(limit, 2*(len(in)+4))
		}
		if len(c.pc.rbuf) > limit {
			t.Fatalf("read buffer of %d bytes from %d bytes of input (authenticated: %v)", len(c.pc.rbuf), len(in), c.authed)
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
		rw := &pipeRW{in: bytes.NewReader(nil)}
		c := &serverConn{s: s, pc: newPacketConn(rw), rw: rw, db: "d"}
		if classifyQuery([]byte(sql)) == kindShow {
			c.showQuery([]byte(sql))
			return
		}
		ctx := &evalContext{c: c, sleep: func(time.Duration) {}}
		if hasUnion([]byte(sql)) {
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
func FuzzClient(f *testing.F) {
	w := newPacketConn(nil)
	w.writePacket(unhex(f, capturedGreeting))
	w.writePacket(unhex(f, "00 00 00 0200 0000"))
	w.resetSeq()
	w.seq = 1
	for _, p := range []string{"01", "03646566 00 00 00 01 31 00 0c 3f00 01000000 03 8100 00 0000", "01 31", "fe 00 00 0200 0000"} {
		w.writePacket(unhex(f, p))
	}
	f.Add(w.wbuf)
	f.Fuzz(func(t *testing.T, in []byte) {
		rw := &pipeRW{in: bytes.NewReader(in)}
		c, err := Connect(rw, ClientConfig{User: "u", Password: "hunter2", MaxMessage: 1 << 20}, len(in)%2 == 0)
		if err != nil {
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error reveals the password: %v", err)
			}
			return
		}
		c.Query("SELECT 1")
		c.colTypes = append(c.colTypes[:0], typeLong)
		st := &Stmt{c: c, id: 1, params: 1}
		st.Exec(1)
	})
}

package mock

import (
	"github.com/hoplat/hoplat/internal/wiretest"
	"github.com/hoplat/hoplat/mysql/wire"

	"encoding/binary"
	"strconv"
	"testing"
)

// pointSelectStream returns n point-select commands as a client sends them:
// COM_STMT_EXECUTE of statement 1 with an INT bound as MYSQL_TYPE_LONG (as
// sysbench binds it), or COM_QUERY text.
func pointSelectStream(n int, prepared bool) []byte {
	w := wire.NewPacketConn(nil)
	for i := range n {
		w.ResetSeq()
		b := w.Begin()
		if prepared {
			b = append(b, wire.ComStmtExecute, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, wire.TypeLong, 0)
			b = binary.LittleEndian.AppendUint32(b, uint32(i+1))
		} else {
			b = append(b, wire.ComQuery)
			b = append(b, "SELECT c FROM sbtest1 WHERE id="...)
			b = strconv.AppendInt(b, int64(i+1), 10)
		}
		w.End(b)
	}
	return w.Wbuf
}

// benchConn is an authenticated server connection reading an endless
// stream of point selects and discarding its replies.
func benchConn(tb testing.TB, prepared bool) *serverConn {
	srv, err := NewServer(ServerConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	rw := &wiretest.Loop{Data: pointSelectStream(64, prepared)}
	c := &serverConn{s: srv, pc: wire.NewPacketConn(rw), rw: rw, deprecateEOF: true, db: "sbtest"}
	c.prepare([]byte("SELECT c FROM sbtest1 WHERE id=?"))
	return c
}

func serveOne(tb testing.TB, c *serverConn) {
	c.pc.ResetSeq()
	p, err := c.pc.ReadPacket()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := c.dispatch(p); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkServerPointSelect is the mock's own CPU per point select, from
// reading the command to handing the reply to Write: the budget is 2 µs.
func BenchmarkServerPointSelect(b *testing.B) {
	for _, mode := range []struct {
		name     string
		prepared bool
	}{{"execute", true}, {"query", false}} {
		b.Run(mode.name, func(b *testing.B) {
			c := benchConn(b, mode.prepared)
			b.ReportAllocs()
			for b.Loop() {
				serveOne(b, c)
			}
		})
	}
}

func TestServerPointSelectAllocs(t *testing.T) {
	for _, prepared := range []bool{true, false} {
		c := benchConn(t, prepared)
		if allocs := testing.AllocsPerRun(1000, func() { serveOne(t, c) }); allocs != 0 {
			t.Errorf("prepared=%v: %.1f allocations per point select served, want 0", prepared, allocs)
		}
	}
}

// TestClientEventAllocs runs the hot workloads against the mock over
// loopback TCP; AllocsPerRun counts the server goroutine too, so 0 proves
// both ends allocate nothing per event.
// BenchmarkClientPointSelect is one point select round trip over loopback
// TCP against the mock: client, server and kernel together.
// BenchmarkServerRangeSelect is the mock's CPU per range select of
// sysbench's oltp_read_only (100 rows), from command to reply.
func BenchmarkServerRangeSelect(b *testing.B) {
	for _, q := range []struct{ name, sql string }{
		{"simple", "SELECT c FROM sbtest1 WHERE id BETWEEN 5001 AND 5100"},
		{"sum", "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 5001 AND 5100"},
		{"order", "SELECT c FROM sbtest1 WHERE id BETWEEN 5001 AND 5100 ORDER BY c"},
		{"distinct", "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 5001 AND 5100 ORDER BY c"},
	} {
		b.Run(q.name, func(b *testing.B) {
			srv, err := NewServer(ServerConfig{})
			if err != nil {
				b.Fatal(err)
			}
			w := wire.NewPacketConn(nil)
			w.End(append(append(w.Begin(), wire.ComQuery), q.sql...))
			rw := &wiretest.Loop{Data: w.Wbuf}
			c := &serverConn{s: srv, pc: wire.NewPacketConn(rw), rw: rw, deprecateEOF: true, db: "sbtest"}
			b.ReportAllocs()
			for b.Loop() {
				serveOne(b, c)
			}
		})
	}
}

// TestServerPointSelectAnswer checks that what the benchmark serves is
// the point select's answer: one row of c, not an error.
func TestServerPointSelectAnswer(t *testing.T) {
	srv, err := NewServer(ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, prepared := range []bool{true, false} {
		rw := wiretest.NewPipe(pointSelectStream(1, prepared))
		c := &serverConn{s: srv, pc: wire.NewPacketConn(rw), rw: rw, deprecateEOF: true, db: "sbtest"}
		c.prepare([]byte("SELECT c FROM sbtest1 WHERE id=?"))
		rw.Out.Reset()
		serveOne(t, c)
		got := readServed(t, rw.Out.Bytes(), prepared)
		if want := (shape{names: []string{"c"}, types: []uint8{wire.TypeString}, rows: 1}); !sameShape(got, want) {
			t.Errorf("prepared=%v: %v, want %v", prepared, got, want)
		}
	}
}

// readServed decodes one response as a client would.
func readServed(t *testing.T, out []byte, binaryRows bool) shape {
	t.Helper()
	cl := recorded{wire.NewPacketConn(wiretest.NewPipe(out))}
	cl.pc.Seq = 1
	return readShape(t, cl, binaryRows)
}

// recorded is a server's recorded answer, read with DEPRECATE_EOF.
type recorded struct{ pc *wire.PacketConn }

func (r recorded) Conn() *wire.PacketConn { return r.pc }
func (r recorded) DeprecateEOF() bool     { return true }

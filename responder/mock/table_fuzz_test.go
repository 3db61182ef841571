package mock

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

var tableSeeds = []string{
	"SELECT c FROM sbtest1 WHERE id=17",
	"SELECT c FROM sbtest2 WHERE id BETWEEN 5 AND 104",
	"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 1 AND 40",
	"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 1 AND 30 ORDER BY c DESC LIMIT 3, 5",
	"select `id`, K, Pad from `sbtest`.`sbtest1` t where t.id in (3, 1, 3) for update;",
	"SELECT COUNT(*), AVG(k), MIN(c), MAX(pad), COUNT(DISTINCT k) FROM sbtest1 WHERE k >= 3 AND c <> 'x'",
	"SELECT * FROM sbtest1 WHERE id NOT BETWEEN 2 AND 40 LIMIT 2 OFFSET 1",
	"UPDATE sbtest1 SET k=k+1 WHERE id=31",
	"UPDATE sbtest2 SET c='1-2', pad=DEFAULT WHERE id BETWEEN 1 AND 3 LIMIT 2",
	"DELETE FROM sbtest1 WHERE id=33",
	"INSERT INTO sbtest1 (id, k, c, pad) VALUES (33, 5000, 'c\\'v', 'p''v'), (NULL, 1, '', '')",
	"REPLACE INTO sbtest1 VALUES (0, 1, 'a', 'b')",
	"SELECT c FROM sbtest1 WHERE id=?",
	"SELECT id FROM nope", "SELECT zz FROM sbtest1", "SELECT id FROM sbtest1 WHERE", "INSERT INTO sbtest1 (id) VALUES (1, 2)",
}

// fuzzServer serves two small tables, so that any range the fuzzer writes
// is cheap to answer.
func fuzzServer(f *testing.F) *Server {
	s, err := NewServer(ServerConfig{Tables: 2, TableSize: 60})
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// FuzzTableStmt feeds the table dialect's parser arbitrary SQL: an answer
// or mysqld's error, never a panic; and a statement parsed into a reused
// tableStmt equals one parsed afresh.
func FuzzTableStmt(f *testing.F) {
	for _, q := range tableSeeds {
		f.Add(q)
	}
	s := fuzzServer(f)
	var reused tableStmt
	f.Fuzz(func(t *testing.T, sql string) {
		parseTableStmt([]byte("SELECT id, k, c, pad FROM sbtest1 WHERE id IN (1, 2, 3) ORDER BY c"), &reused)
		errReused := parseTableStmt([]byte(sql), &reused)
		var fresh tableStmt
		errFresh := parseTableStmt([]byte(sql), &fresh)
		if fmt.Sprint(errReused) != fmt.Sprint(errFresh) || fmt.Sprintf("%+v", reused) != fmt.Sprintf("%+v", fresh) {
			t.Fatalf("%q parses differently into a reused statement:\n%+v %v\n%+v %v", sql, reused, errReused, fresh, errFresh)
		}
		c := fuzzConn(s)
		c.pc.Seq = 1 // the command was packet 0
		c.tableQuery([]byte(sql))
		checkAnswer(t, sql, c, false)
	})
}

// FuzzTableExecute prepares arbitrary SQL and executes it with the
// fuzzer's integer and string parameters, in binary rows.
func FuzzTableExecute(f *testing.F) {
	for _, q := range tableSeeds {
		f.Add(q, int64(7), "x")
	}
	f.Add("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? LIMIT ?", int64(-3), "20")
	f.Add("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", int64(1<<40), "")
	s := fuzzServer(f)
	f.Fuzz(func(t *testing.T, sql string, n int64, str string) {
		c := fuzzConn(s)
		c.pc.Seq = 1
		if err := c.prepare([]byte(sql)); err != nil {
			t.Fatal(err)
		}
		st := c.stmts[c.nextStmt]
		if st == nil || st.class != sqlread.ClassTable {
			return
		}
		rw := c.rw.(*wiretest.Pipe)
		rw.Out.Reset()
		b := binary.LittleEndian.AppendUint32([]byte{wire.ComStmtExecute}, c.nextStmt)
		b = append(b, 0, 1, 0, 0, 0)
		if st.params > 0 {
			b = append(b, make([]byte, (st.params+7)/8)...)
			b = append(b, 1)
			for i := range st.params {
				if i%2 == 0 {
					b = append(b, wire.TypeLongLong, 0)
				} else {
					b = append(b, wire.TypeVarString, 0)
				}
			}
			for i := range st.params {
				if i%2 == 0 {
					b = binary.LittleEndian.AppendUint64(b, uint64(n))
				} else {
					b = wire.AppendLenEncString(b, str)
				}
			}
		}
		c.pc.Seq = 1
		c.execute(b[1:])
		checkAnswer(t, sql, c, true)
	})
}

func fuzzConn(s *Server) *serverConn {
	rw := wiretest.NewPipe(nil)
	return &serverConn{s: s, pc: wire.NewPacketConn(rw), rw: rw, db: "sbtest", deprecateEOF: true}
}

// checkAnswer decodes what c wrote: one ERR or OK, or a whole result set
// whose rows fit its columns.
func checkAnswer(t *testing.T, sql string, c *serverConn, binaryRows bool) {
	t.Helper()
	out := c.rw.(*wiretest.Pipe).Out.Bytes()
	r := wire.NewPacketConn(wiretest.NewPipe(out))
	r.Seq = 1
	p, err := r.ReadPacket()
	if err != nil || len(p) == 0 {
		t.Fatalf("%q: no answer (%v)", sql, err)
	}
	switch p[0] {
	case wire.HeaderErr:
		if _, ok := wire.ParseErr(p).(*wire.ServerError); !ok {
			t.Fatalf("%q: malformed error %x", sql, p)
		}
		return
	case wire.HeaderOK:
		if _, err := wire.ParseOK(p); err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		return
	}
	d := wire.Decoder{B: p, What: "column count"}
	n, _ := d.LenEncInt("column count")
	if d.Err != nil || n == 0 {
		t.Fatalf("%q: column count %x: %v", sql, p, d.Err)
	}
	var types []byte
	for range n {
		p, err := r.ReadPacket()
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		col, err := wire.ParseColumnDef(p)
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		types = append(types, col.ColType)
	}
	for {
		p, err := r.ReadPacket()
		if err != nil {
			t.Fatalf("%q: result set ends early: %v", sql, err)
		}
		switch {
		case wire.IsTerminator(p):
			return
		case binaryRows:
			err = wire.CheckBinaryRow(p, types)
		default:
			err = wire.CheckTextRow(p, len(types))
		}
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
	}
}

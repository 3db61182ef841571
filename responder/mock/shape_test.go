package mock

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// shape is what a client can tell about a statement's answer apart from
// the values themselves: the error code, or the columns' names and types
// and the row count, or the OK packet's affected rows and insert id.
type shape struct {
	code     uint16
	names    []string
	types    []uint8
	rows     int
	affected uint64
	insertID uint64
	// prepared: the column names and types the prepare response described.
	prepNames []string
	prepTypes []uint8
}

func (s shape) String() string {
	if s.code != 0 {
		return fmt.Sprintf("ERR %d", s.code)
	}
	if s.names == nil {
		return fmt.Sprintf("OK affected=%d insert_id=%d", s.affected, s.insertID)
	}
	cols := make([]string, len(s.names))
	for i := range s.names {
		cols[i] = fmt.Sprintf("%s:%d", s.names[i], s.types[i])
	}
	return fmt.Sprintf("[%s] %d rows", strings.Join(cols, " "), s.rows)
}

// describe runs sql on c, as COM_QUERY or, when prepared, as
// COM_STMT_PREPARE and COM_STMT_EXECUTE with args bound (int64 as
// LONGLONG, string as VAR_STRING), and reads the answer's shape.
func describe(t testing.TB, c *mysql.Client, sql string, prepared bool, args ...any) shape {
	t.Helper()
	if !prepared {
		c.Conn().ResetSeq()
		c.Conn().End(append(append(c.Conn().Begin(), wire.ComQuery), sql...))
		return readShape(t, c, false)
	}
	c.Conn().ResetSeq()
	c.Conn().End(append(append(c.Conn().Begin(), wire.ComStmtPrepare), sql...))
	if err := c.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	p := mustRead(t, c)
	if p[0] == wire.HeaderErr {
		return shape{code: mysqltest.AsServerError(wire.ParseErr(p)).Code}
	}
	ok, err := wire.ParseStmtPrepareOK(p)
	if err != nil {
		t.Fatal(err)
	}
	if int(ok.Params) != len(args) {
		t.Fatalf("%s: server counts %d parameters, %d given", sql, ok.Params, len(args))
	}
	var s shape
	for block, n := range [2]int{int(ok.Params), int(ok.Columns)} {
		if n == 0 {
			continue
		}
		for range n {
			col, err := wire.ParseColumnDef(mustRead(t, c))
			if err != nil {
				t.Fatal(err)
			}
			if block == 1 {
				s.prepNames = append(s.prepNames, string(col.Name))
				s.prepTypes = append(s.prepTypes, col.ColType)
			}
		}
		if !c.DeprecateEOF() {
			mustRead(t, c)
		}
	}
	c.Conn().ResetSeq()
	b := append(c.Conn().Begin(), wire.ComStmtExecute)
	b = binary.LittleEndian.AppendUint32(b, ok.Id)
	b = append(b, 0, 1, 0, 0, 0)
	if len(args) > 0 {
		b = append(b, make([]byte, (len(args)+7)/8)...)
		b = append(b, 1)
		for _, a := range args {
			if _, isInt := a.(int64); isInt {
				b = append(b, wire.TypeLongLong, 0)
			} else {
				b = append(b, wire.TypeVarString, 0)
			}
		}
		for _, a := range args {
			switch v := a.(type) {
			case int64:
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			case string:
				b = wire.AppendLenEncString(b, v)
			}
		}
	}
	c.Conn().End(b)
	r := readShape(t, c, true)
	r.prepNames, r.prepTypes = s.prepNames, s.prepTypes
	c.Conn().ResetSeq()
	c.Conn().End(binary.LittleEndian.AppendUint32(append(c.Conn().Begin(), wire.ComStmtClose), ok.Id))
	if err := c.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	return r
}

func mustRead(t testing.TB, c packetStream) []byte {
	t.Helper()
	p, err := c.Conn().ReadPacket()
	if err != nil {
		t.Fatal(err)
	}
	if len(p) == 0 {
		t.Fatal("empty packet")
	}
	return p
}

// packetStream is what reading an answer needs of a client: a
// *mysql.Client, or a recorded stream.
type packetStream interface {
	Conn() *wire.PacketConn
	DeprecateEOF() bool
}

func readShape(t testing.TB, c packetStream, binaryRows bool) shape {
	t.Helper()
	if err := c.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	p := mustRead(t, c)
	var s shape
	switch p[0] {
	case wire.HeaderErr:
		s.code = mysqltest.AsServerError(wire.ParseErr(p)).Code
		return s
	case wire.HeaderOK:
		ok, err := wire.ParseOK(p)
		if err != nil {
			t.Fatal(err)
		}
		s.affected, s.insertID = ok.AffectedRows, ok.LastInsertID
		return s
	}
	d := wire.Decoder{B: p, What: "column count"}
	n, _ := d.LenEncInt("column count")
	for range n {
		col, err := wire.ParseColumnDef(mustRead(t, c))
		if err != nil {
			t.Fatal(err)
		}
		s.names = append(s.names, string(col.Name))
		s.types = append(s.types, col.ColType)
	}
	if !c.DeprecateEOF() {
		mustRead(t, c)
	}
	for {
		p := mustRead(t, c)
		switch {
		case wire.IsTerminator(p):
			return s
		case p[0] == wire.HeaderErr:
			t.Fatalf("error inside a result set: %v", wire.ParseErr(p))
		case binaryRows:
			if err := wire.CheckBinaryRow(p, s.types); err != nil {
				t.Fatal(err)
			}
		default:
			if err := wire.CheckTextRow(p, len(s.types)); err != nil {
				t.Fatal(err)
			}
		}
		s.rows++
	}
}

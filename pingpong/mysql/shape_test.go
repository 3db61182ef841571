package mysql

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
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
func describe(t testing.TB, c *Client, sql string, prepared bool, args ...any) shape {
	t.Helper()
	if !prepared {
		c.pc.resetSeq()
		c.pc.end(append(append(c.pc.begin(), comQuery), sql...))
		return readShape(t, c, false)
	}
	c.pc.resetSeq()
	c.pc.end(append(append(c.pc.begin(), comStmtPrepare), sql...))
	if err := c.pc.flush(); err != nil {
		t.Fatal(err)
	}
	p := mustRead(t, c)
	if p[0] == headerErr {
		return shape{code: asServerError(parseErr(p)).Code}
	}
	ok, err := parseStmtPrepareOK(p)
	if err != nil {
		t.Fatal(err)
	}
	if int(ok.params) != len(args) {
		t.Fatalf("%s: server counts %d parameters, %d given", sql, ok.params, len(args))
	}
	var s shape
	for block, n := range [2]int{int(ok.params), int(ok.columns)} {
		if n == 0 {
			continue
		}
		for range n {
			col, err := parseColumnDef(mustRead(t, c))
			if err != nil {
				t.Fatal(err)
			}
			if block == 1 {
				s.prepNames = append(s.prepNames, string(col.name))
				s.prepTypes = append(s.prepTypes, col.colType)
			}
		}
		if !c.deprecateEOF {
			mustRead(t, c)
		}
	}
	c.pc.resetSeq()
	b := append(c.pc.begin(), comStmtExecute)
	b = binary.LittleEndian.AppendUint32(b, ok.id)
	b = append(b, 0, 1, 0, 0, 0)
	if len(args) > 0 {
		b = append(b, make([]byte, (len(args)+7)/8)...)
		b = append(b, 1)
		for _, a := range args {
			if _, isInt := a.(int64); isInt {
				b = append(b, typeLongLong, 0)
			} else {
				b = append(b, typeVarString, 0)
			}
		}
		for _, a := range args {
			switch v := a.(type) {
			case int64:
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			case string:
				b = appendLenEncString(b, v)
			}
		}
	}
	c.pc.end(b)
	r := readShape(t, c, true)
	r.prepNames, r.prepTypes = s.prepNames, s.prepTypes
	c.pc.resetSeq()
	c.pc.end(binary.LittleEndian.AppendUint32(append(c.pc.begin(), comStmtClose), ok.id))
	if err := c.pc.flush(); err != nil {
		t.Fatal(err)
	}
	return r
}

func mustRead(t testing.TB, c *Client) []byte {
	t.Helper()
	p, err := c.pc.readPacket()
	if err != nil {
		t.Fatal(err)
	}
	if len(p) == 0 {
		t.Fatal("empty packet")
	}
	return p
}

func readShape(t testing.TB, c *Client, binaryRows bool) shape {
	t.Helper()
	if err := c.pc.flush(); err != nil {
		t.Fatal(err)
	}
	p := mustRead(t, c)
	var s shape
	switch p[0] {
	case headerErr:
		s.code = asServerError(parseErr(p)).Code
		return s
	case headerOK:
		ok, err := parseOK(p)
		if err != nil {
			t.Fatal(err)
		}
		s.affected, s.insertID = ok.affectedRows, ok.lastInsertID
		return s
	}
	d := decoder{b: p, what: "column count"}
	n, _ := d.lenEncInt("column count")
	for range n {
		col, err := parseColumnDef(mustRead(t, c))
		if err != nil {
			t.Fatal(err)
		}
		s.names = append(s.names, string(col.name))
		s.types = append(s.types, col.colType)
	}
	if !c.deprecateEOF {
		mustRead(t, c)
	}
	for {
		p := mustRead(t, c)
		switch {
		case isTerminator(p):
			return s
		case p[0] == headerErr:
			t.Fatalf("error inside a result set: %v", parseErr(p))
		case binaryRows:
			if err := checkBinaryRow(p, s.types); err != nil {
				t.Fatal(err)
			}
		default:
			if err := checkTextRow(p, len(s.types)); err != nil {
				t.Fatal(err)
			}
		}
		s.rows++
	}
}

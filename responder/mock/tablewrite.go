package mock

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/hoplat/hoplat/mysql/sbtable"
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// Writes are answered as mysqld answers them on the table as `sysbench
// prepare` left it, and change nothing the mock reads back: an UPDATE or
// DELETE counts the rows its WHERE selects among ids 1..size (UPDATE: those
// whose values it would change, or all it matched under CLIENT_FOUND_ROWS),
// an INSERT or REPLACE always adds its rows, never colliding, and takes
// AUTO_INCREMENT ids from a per-table counter that starts after the
// prepared rows and moves past any explicit id, as InnoDB's does. So a
// sysbench oltp_read_write event (DELETE id=v, then INSERT id=v) gets 1 and
// 1 as on a real server, and every read still sees the prepared rows.

const capFoundRows = 0x00000002 // CLIENT_FOUND_ROWS

func (c *serverConn) runWrite(st *tableStmt) error {
	switch st.verb {
	case verbUpdate:
		return c.runUpdate(st)
	case verbDelete:
		_, limit, serr := c.limits(st)
		if serr != nil {
			return c.sendServerError(serr)
		}
		sc := c.plan(st)
		var n int64
		for id, ok := sc.next(); ok && n < limit; id, ok = sc.next() {
			if c.matches(st, id) {
				n++
			}
		}
		return c.writeOK(uint64(n), 0, nil)
	}
	return c.runInsert(st)
}

func (c *serverConn) runUpdate(st *tableStmt) error {
	for i := range st.sets {
		s := &st.sets[i]
		if s.col.col == sbtable.ID {
			return c.sendErr(wire.ErNotSupportedYet, "42000", "This version of MySQL doesn't yet support 'UPDATE of the primary key' (a mock mysqld)")
		}
		if s.v.Kind == sqlread.Null || s.v.Kind == sqlread.Param && c.isNull(st, s.v) {
			return c.sendServerError(badNull(s.col.col))
		}
	}
	_, limit, serr := c.limits(st)
	if serr != nil {
		return c.sendServerError(serr)
	}
	sc := c.plan(st)
	var matched, changed int64
	for id, ok := sc.next(); ok && matched < limit; id, ok = sc.next() {
		if !c.matches(st, id) {
			continue
		}
		matched++
		for i := range st.sets {
			if c.changes(st, &st.sets[i], id) {
				changed++
				break
			}
		}
	}
	affected := changed
	if c.foundRows {
		affected = matched
	}
	info := c.scratch[:0]
	info = append(info, "Rows matched: "...)
	info = strconv.AppendInt(info, matched, 10)
	info = append(info, "  Changed: "...)
	info = strconv.AppendInt(info, changed, 10)
	info = append(info, "  Warnings: 0"...)
	c.scratch = info
	return c.writeOK(uint64(affected), 0, info)
}

// changes reports whether SET s gives row id a new value.
func (c *serverConn) changes(st *tableStmt, s *setItem, id int64) bool {
	t := &st.tbl
	col := s.col.col
	if s.hasSrc {
		d, _ := c.intValue(st, s.v)
		if isStringColumn(col) || isStringColumn(s.src.col) {
			return s.src.col != col || d != 0
		}
		if s.neg {
			d = -d
		}
		return t.Int(id, s.src.col)+d != t.Int(id, col)
	}
	if !isStringColumn(col) {
		n, _ := c.intValue(st, s.v)
		return n != t.K(id)
	}
	v, _ := c.stringValue(st, s.v, c.scratch[:0])
	var buf [sbtable.CLen]byte
	return !bytes.Equal(t.AppendText(buf[:0], id, col), bytes.TrimRight(v, " "))
}

func badNull(col sbtable.Column) *wire.ServerError {
	return &wire.ServerError{Code: ErBadNull, State: "23000", Message: fmt.Sprintf("Column '%s' cannot be null", col)}
}

func (c *serverConn) runInsert(st *tableStmt) error {
	width := len(st.insCols)
	idAt := -1
	for i := range st.insCols {
		if st.insCols[i].col == sbtable.ID {
			idAt = i
		}
	}
	if width == 0 {
		width, idAt = int(sbtable.NumColumns), int(sbtable.ID)
	}
	for i, v := range st.insVals {
		if i%width == idAt || !c.isNull(st, v) {
			continue
		}
		col := sbtable.Column(i % width)
		if len(st.insCols) > 0 {
			col = st.insCols[i%width].col
		}
		return c.sendServerError(badNull(col))
	}
	next := &c.s.autoInc[st.tableIndex]
	var first, last uint64
	for r := range st.insRows {
		var id int64
		if idAt >= 0 {
			id, _ = c.intValue(st, st.insVals[r*width+idAt])
		}
		if id <= 0 {
			// NULL, DEFAULT, 0 or no id: the next AUTO_INCREMENT value.
			id = next.Add(1) - 1
			if first == 0 {
				first = uint64(id)
			}
		} else {
			for cur := next.Load(); cur <= id && !next.CompareAndSwap(cur, id+1); cur = next.Load() {
			}
		}
		last = uint64(id)
	}
	insertID := first
	if first != 0 {
		c.lastInsertID = first
	} else {
		// Only explicit ids: the OK packet carries the last of them, and
		// LAST_INSERT_ID() stays as it was (mysql_insert_id()'s rules).
		insertID = last
	}
	var info []byte
	if st.insRows > 1 {
		info = c.scratch[:0]
		info = append(info, "Records: "...)
		info = strconv.AppendInt(info, int64(st.insRows), 10)
		info = append(info, "  Duplicates: 0  Warnings: 0"...)
		c.scratch = info
	}
	return c.writeOK(uint64(st.insRows), insertID, info)
}

// writeOK sends an OK packet with affected rows, the last insert id and
// an info text (what the mysql client prints under "Query OK").
func (c *serverConn) writeOK(affected, insertID uint64, info []byte) error {
	b := append(c.pc.Begin(), wire.HeaderOK)
	b = wire.AppendLenEncInt(b, affected)
	b = wire.AppendLenEncInt(b, insertID)
	b = append(b, byte(wire.ServerStatusAutocommit), byte(wire.ServerStatusAutocommit>>8), 0, 0)
	if len(info) > 0 {
		// Length-prefixed, as mysqld's net_send_ok stores it and
		// libmariadb reads it.
		b = wire.AppendLenEncBytes(b, info)
	}
	c.pc.End(b)
	return c.pc.Flush()
}

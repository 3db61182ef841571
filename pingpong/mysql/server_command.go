package mysql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// serverStmt is a statement prepared on one connection.
type serverStmt struct {
	params int
	kind   queryKind
	types  []byte // parameter types from the last execution that sent them
}

// maxStmts bounds the prepared statements one connection may hold, as
// max_prepared_stmt_count does, so a client cannot grow the map forever.
const maxStmts = 16382

func (c *serverConn) commandLoop() error {
	for {
		c.pc.resetSeq()
		p, err := c.pc.readPacket()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, ErrOutOfOrder) {
				c.pc.seq = 1
				c.sendErr(ErNetPacketsOutOfOrder, "08S01", "Got packets out of order")
			}
			return fmt.Errorf("mysql: serve: read command: %w", err)
		}
		quit, err := c.dispatch(p)
		if err != nil || quit {
			return err
		}
	}
}

func (c *serverConn) dispatch(p []byte) (quit bool, err error) {
	if len(p) == 0 {
		c.sendErr(ErUnknownCommand, "08S01", "Unknown command")
		return false, errors.New("mysql: serve: empty command packet")
	}
	i := 0
	if c.deprecateEOF {
		i = 1
	}
	s := c.s
	switch p[0] {
	case comQuit:
		return true, nil
	case comPing, comResetConnection:
		return false, c.pc.writeRaw(s.ok[i].frames, s.ok[i].packets)
	case comInitDB:
		c.db = string(p[1:])
		return false, c.pc.writeRaw(s.ok[i].frames, s.ok[i].packets)
	case comQuery:
		return false, c.query(p[1:])
	case comStmtPrepare:
		return false, c.prepare(p[1:])
	case comStmtExecute:
		return false, c.execute(p[1:])
	case comStmtClose:
		if len(p) >= 5 {
			delete(c.stmts, binary.LittleEndian.Uint32(p[1:]))
		}
		return false, nil // no reply, by protocol
	case comStmtSendLongData:
		return false, nil // no reply, by protocol; the value is not needed
	case comFieldList:
		// No fields: the list ends at once (old clients' table completion).
		endResultSet(c.pc, c.deprecateEOF)
		return false, c.pc.flush()
	case comStmtReset:
		if len(p) < 5 || c.stmts[binary.LittleEndian.Uint32(p[1:])] == nil {
			return false, c.sendErr(ErUnknownStmtHandler, "HY000", "Unknown prepared statement handler given to mysqld_stmt_reset")
		}
		return false, c.pc.writeRaw(s.ok[i].frames, s.ok[i].packets)
	}
	return false, c.sendErr(ErUnknownCommand, "08S01", "Unknown command")
}

func (c *serverConn) service() {
	if f := c.s.cfg.Service; f != nil {
		f()
	}
}

func (c *serverConn) query(sql []byte) error {
	kind := classifyQuery(sql)
	c.service()
	i := 0
	if c.deprecateEOF {
		i = 1
	}
	switch kind {
	case kindEmpty:
		return c.sendErr(1065, "42000", "Query was empty")
	case kindSelect:
		r := &c.s.textRows[i]
		return c.pc.writeRaw(r.frames, r.packets)
	case kindOK:
		r := &c.s.ok[i]
		return c.pc.writeRaw(r.frames, r.packets)
	}
	return c.metadataQuery(kind, sql)
}

// prepare answers COM_STMT_PREPARE: placeholders are counted in the SQL, a
// SELECT gets the canned c column, anything else no columns.
func (c *serverConn) prepare(sql []byte) error {
	if c.stmts == nil {
		c.stmts = map[uint32]*serverStmt{}
	}
	if len(c.stmts) >= maxStmts {
		return c.sendErr(1461, "42000", fmt.Sprintf("Can't create more than max_prepared_stmt_count statements (current value: %d)", maxStmts))
	}
	st := &serverStmt{params: countParams(sql), kind: classifyQuery(sql)}
	if st.params > 0xFFFF {
		// The prepare-OK packet counts parameters in two bytes.
		return c.sendErr(1390, "HY000", "Prepared statement contains too many placeholders")
	}
	if st.kind == kindEmpty {
		return c.sendErr(1065, "42000", "Query was empty")
	}
	if st.kind != kindOK {
		// Every statement that returns rows is served the canned c column
		// when prepared; metadata queries are prepared rarely enough.
		st.kind = kindSelect
	}
	c.nextStmt++
	c.stmts[c.nextStmt] = st
	ok := stmtPrepareOK{id: c.nextStmt, params: uint16(st.params)}
	if st.kind == kindSelect {
		ok.columns = 1
	}
	c.pc.end(appendStmtPrepareOK(c.pc.begin(), &ok))
	if st.params > 0 {
		param := columnDef{name: []byte("?"), charset: 63, colType: typeLongLong, flags: flagBinary}
		for range st.params {
			c.pc.end(appendColumnDef(c.pc.begin(), &param))
		}
		if !c.deprecateEOF {
			c.pc.end(appendEOF(c.pc.begin(), serverStatusAutocommit))
		}
	}
	if ok.columns > 0 {
		c.pc.writePacket(c.s.colDef)
		if !c.deprecateEOF {
			c.pc.end(appendEOF(c.pc.begin(), serverStatusAutocommit))
		}
	}
	return c.pc.flush()
}

// execute answers COM_STMT_EXECUTE after checking that the parameter block
// is well formed (brief §5).
func (c *serverConn) execute(b []byte) error {
	st, err := c.parseExecute(b)
	if err != nil {
		var se *ServerError
		if errors.As(err, &se) {
			return c.sendErr(se.Code, se.State, se.Message)
		}
		return c.sendErr(ErWrongArguments, "HY000", "Incorrect arguments to mysqld_stmt_execute")
	}
	c.service()
	i := 0
	if c.deprecateEOF {
		i = 1
	}
	r := &c.s.ok[i]
	if st.kind == kindSelect {
		r = &c.s.binRows[i]
	}
	return c.pc.writeRaw(r.frames, r.packets)
}

func (c *serverConn) parseExecute(b []byte) (*serverStmt, error) {
	d := decoder{b: b, what: "COM_STMT_EXECUTE"}
	id := d.u32("statement id")
	d.u8("flags")
	d.u32("iteration count")
	if d.err != nil {
		return nil, d.err
	}
	st := c.stmts[id]
	if st == nil {
		return nil, &ServerError{Code: ErUnknownStmtHandler, State: "HY000", Message: "Unknown prepared statement handler given to mysqld_stmt_execute"}
	}
	if st.params == 0 {
		return st, nil
	}
	nulls := d.bytes((st.params+7)/8, "NULL bitmap")
	if d.u8("new-params-bound flag") == 1 {
		st.types = append(st.types[:0], d.bytes(2*st.params, "parameter types")...)
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(st.types) != 2*st.params {
		return nil, errors.New("mysql: decode COM_STMT_EXECUTE: parameters never bound")
	}
	for i := range st.params {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		switch t := st.types[2*i]; t {
		case typeDate, typeDateTime, typeTimestamp, typeTime:
			d.bytes(int(d.u8("temporal length")), "temporal value")
		default:
			if n := binaryValueLen(t); n >= 0 {
				d.skip(n, "parameter value")
			} else {
				d.lenEncBytes("parameter value")
			}
		}
	}
	return st, d.err
}

// countParams counts '?' placeholders outside quotes and comments.
func countParams(sql []byte) int {
	n := 0
	var quote byte
	for i := 0; i < len(sql); i++ {
		ch := sql[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
		case ch == '?':
			n++
		}
	}
	return n
}

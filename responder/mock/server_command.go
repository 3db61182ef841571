package mock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// serverStmt is a statement prepared on one connection.
type serverStmt struct {
	params int
	class  sqlread.Class
	types  []byte      // parameter types from the last execution that sent them
	expr   *exprResult // ClassExpr: the result, encoded when constant
	sql    string      // ClassExpr: the text, to evaluate again when not
	tq     *tableStmt  // ClassTable: the parsed statement over its own copy of the text
}

// maxStmts bounds the prepared statements one connection may hold, as
// max_prepared_stmt_count does, so a client cannot grow the map forever.
const maxStmts = 16382

func (c *serverConn) commandLoop() error {
	for {
		c.pc.ResetSeq()
		p, err := c.pc.ReadPacket()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, wire.ErrOutOfOrder) {
				c.pc.Seq = 1
				c.sendErr(wire.ErNetPacketsOutOfOrder, "08S01", "Got packets out of order")
			}
			if errors.Is(err, wire.ErrPacketTooLarge) {
				// mysqld's reply, after which it closes the connection.
				c.sendErr(wire.ErNetPacketTooLarge, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes")
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
		c.sendErr(wire.ErUnknownCommand, "08S01", "Unknown command")
		return false, errors.New("mysql: serve: empty command packet")
	}
	i := 0
	if c.deprecateEOF {
		i = 1
	}
	s := c.s
	if c.questions++; c.questions >= 1024 {
		c.flushQuestions()
	}
	switch p[0] {
	case wire.ComQuit:
		return true, nil
	case wire.ComPing:
		return false, c.pc.WriteRaw(s.ok[i].frames, s.ok[i].packets)
	case wire.ComResetConnection:
		// What mysqld resets: prepared statements go, the user and the
		// schema stay.
		clear(c.stmts)
		return false, c.pc.WriteRaw(s.ok[i].frames, s.ok[i].packets)
	case wire.ComChangeUser:
		return false, c.changeUser(p[1:])
	case wire.ComStatistics:
		c.flushQuestions()
		// A bare string, not an OK packet (COM_STATISTICS in the MySQL
		// Source Code Documentation); mariadb-admin status prints it.
		c.pc.WritePacket([]byte(c.s.statistics()))
		return false, c.pc.Flush()
	case wire.ComSetOption:
		// Multi-statements on or off: mysqld answers with EOF (an
		// 0xFE-headed OK with DEPRECATE_EOF). The mock never runs more
		// than one statement per query either way.
		if len(p) != 3 {
			return false, c.sendErr(wire.ErUnknownCommand, "08S01", "Unknown command")
		}
		endResultSet(c.pc, c.deprecateEOF)
		return false, c.pc.Flush()
	case wire.ComInitDB:
		c.db = string(p[1:])
		return false, c.pc.WriteRaw(s.ok[i].frames, s.ok[i].packets)
	case wire.ComQuery:
		return false, c.query(p[1:])
	case wire.ComStmtPrepare:
		return false, c.prepare(p[1:])
	case wire.ComStmtExecute:
		return false, c.execute(p[1:])
	case wire.ComStmtClose:
		if len(p) >= 5 {
			delete(c.stmts, binary.LittleEndian.Uint32(p[1:]))
		}
		return false, nil // no reply, by protocol
	case wire.ComStmtSendLongData:
		return false, nil // no reply, by protocol; the value is not needed
	case wire.ComFieldList:
		// The mariadb client's table-name completion (auto-rehash).
		return false, c.fieldList(p[1:])
	case wire.ComStmtReset:
		if len(p) < 5 || c.stmts[binary.LittleEndian.Uint32(p[1:])] == nil {
			return false, c.sendErr(wire.ErUnknownStmtHandler, "HY000", "Unknown prepared statement handler given to mysqld_stmt_reset")
		}
		return false, c.pc.WriteRaw(s.ok[i].frames, s.ok[i].packets)
	}
	return false, c.sendErr(wire.ErUnknownCommand, "08S01", "Unknown command")
}

func (c *serverConn) service() {
	if f := c.s.cfg.Service; f != nil {
		f()
	}
}

func (c *serverConn) query(sql []byte) error {
	stmt := sqlread.Classify(sql)
	c.service()
	i := 0
	if c.deprecateEOF {
		i = 1
	}
	switch stmt.Class {
	case sqlread.ClassTable:
		return c.tableQuery(sql)
	case sqlread.ClassOK:
		r := &c.s.ok[i]
		return c.pc.WriteRaw(r.frames, r.packets)
	case sqlread.ClassExpr:
		if r := c.s.cachedExpr(sql); r != nil {
			return c.pc.WriteRaw(r.text[i].frames, r.text[i].packets)
		}
		return c.answerExpr(sql, false)
	case sqlread.ClassUnion:
		return c.unionQuery(sql)
	case sqlread.ClassShow:
		c.flushQuestions()
		return c.showQuery(sql)
	case sqlread.ClassUse:
		db, serr := useTarget(sql)
		if serr != nil {
			return c.sendServerError(serr)
		}
		c.db = db
		r := &c.s.ok[i]
		return c.pc.WriteRaw(r.frames, r.packets)
	}
	return c.sendServerError(statementError(sql, stmt))
}

// statementError is mysqld's error for a statement the mock does not run.
func statementError(sql []byte, stmt sqlread.Statement) *wire.ServerError {
	switch stmt.Class {
	case sqlread.ClassEmpty:
		return &wire.ServerError{Code: wire.ErEmptyQuery, State: "42000", Message: "Query was empty"}
	case sqlread.ClassSystemTable:
		return &wire.ServerError{Code: wire.ErNoSuchTable, State: "42S02", Message: fmt.Sprintf("Table '%s.%s' doesn't exist", stmt.Schema.Of(sql), stmt.Table.Of(sql))}
	case sqlread.ClassUnsupported:
		return &wire.ServerError{Code: wire.ErNotSupportedYet, State: "42000", Message: fmt.Sprintf("This version of MySQL doesn't yet support '%s' (a mock mysqld)", strings.ToUpper(string(stmt.First.Of(sql))))}
	}
	return sqlread.SyntaxError(sql[stmt.First.Start:])
}

// useTarget reads the schema of USE db.
func useTarget(sql []byte) (string, *wire.ServerError) {
	var p parser
	p.Init(sql)
	p.Accept(sqlread.KwUse)
	t, ok := p.word()
	if !ok {
		p.fail()
	}
	if p.end(); p.err != nil {
		return "", p.err
	}
	return p.Ident(t), nil
}

func (c *serverConn) sendServerError(e *wire.ServerError) error {
	return c.sendErr(e.Code, e.State, e.Message)
}

// writeRows writes a text result set.
func (c *serverConn) writeRows(cols []wire.ColumnDef, rows [][]sqlread.Value) error {
	writeResult(c.pc, cols, rows, c.deprecateEOF, false)
	return c.pc.Flush()
}

// evalExpr evaluates a SELECT without a table and, when its result does
// not vary, caches the encoded responses for the next time its text comes.
func (c *serverConn) evalExpr(sql []byte) (*exprResult, *wire.ServerError) {
	r, serr := evalSelect(sql, &evalContext{c: c, now: time.Now()})
	if serr != nil {
		return nil, serr
	}
	if r.constant {
		r.encode()
		c.s.cacheExpr(sql, r)
	}
	return r, nil
}

// answerExpr evaluates a SELECT without a table and writes its result,
// in text rows or binary ones.
func (c *serverConn) answerExpr(sql []byte, binaryRows bool) error {
	r, serr := c.evalExpr(sql)
	if serr != nil {
		return c.sendServerError(serr)
	}
	r.write(c.pc, c.deprecateEOF, binaryRows)
	return c.pc.Flush()
}

// maxCachedExprs bounds the cache of constant SELECT results; past it,
// further ones are evaluated each time.
const maxCachedExprs = 1024

func (s *Server) cachedExpr(sql []byte) *exprResult {
	s.exprMu.RLock()
	r := s.exprs[string(sql)] // no allocation: the compiler reads sql in place
	s.exprMu.RUnlock()
	return r
}

func (s *Server) cacheExpr(sql []byte, r *exprResult) {
	s.exprMu.Lock()
	if len(s.exprs) < maxCachedExprs {
		s.exprs[string(sql)] = r
	}
	s.exprMu.Unlock()
}

// prepare answers COM_STMT_PREPARE: placeholders are counted in the SQL, a
// statement on a table is parsed and checked as mysqld checks it at
// prepare, a SELECT describes its columns, anything else none.
func (c *serverConn) prepare(sql []byte) error {
	if c.stmts == nil {
		c.stmts = map[uint32]*serverStmt{}
	}
	if len(c.stmts) >= maxStmts {
		return c.sendErr(1461, "42000", fmt.Sprintf("Can't create more than max_prepared_stmt_count statements (current value: %d)", maxStmts))
	}
	stmt := sqlread.Classify(sql)
	st := &serverStmt{params: sqlread.CountParams(sql), class: stmt.Class}
	if st.params > 0xFFFF {
		// The prepare-OK packet counts parameters in two bytes.
		return c.sendErr(1390, "HY000", "Prepared statement contains too many placeholders")
	}
	switch st.class {
	case sqlread.ClassOK:
	case sqlread.ClassTable:
		tq := &tableStmt{}
		if serr := parseTableStmt([]byte(string(sql)), tq); serr != nil {
			return c.sendServerError(serr)
		}
		if serr := c.resolve(tq); serr != nil {
			return c.sendServerError(serr)
		}
		st.tq, st.params = tq, tq.params
		if tq.verb == verbSelect {
			cols := c.resultColumns(tq)
			tq.header = frame(func(pc *wire.PacketConn) { c.encodeHeader(pc, tq, cols) })
		}
	case sqlread.ClassExpr:
		if st.params > 0 {
			return c.sendErr(wire.ErUnsupportedPS, "HY000", "This command is not supported in the prepared statement protocol yet")
		}
		r, serr := c.evalExpr(sql)
		if serr != nil {
			return c.sendServerError(serr)
		}
		st.expr, st.sql = r, string(sql)
	case sqlread.ClassUnion, sqlread.ClassShow, sqlread.ClassUse:
		// mysqld prepares these; the mock answers them as text only.
		return c.sendErr(wire.ErUnsupportedPS, "HY000", "This command is not supported in the prepared statement protocol yet")
	default:
		return c.sendServerError(statementError(sql, stmt))
	}
	c.nextStmt++
	c.stmts[c.nextStmt] = st
	ok := wire.StmtPrepareOK{Id: c.nextStmt, Params: uint16(st.params)}
	var cols []wire.ColumnDef
	var outCols []outCol
	switch st.class {
	case sqlread.ClassTable:
		if st.tq.verb == verbSelect {
			outCols = c.resultColumns(st.tq)
			ok.Columns = uint16(len(outCols))
		}
	case sqlread.ClassExpr:
		cols = st.expr.cols
		ok.Columns = uint16(len(cols))
	}
	c.pc.End(wire.AppendStmtPrepareOK(c.pc.Begin(), &ok))
	if st.params > 0 {
		param := wire.ColumnDef{Name: []byte("?"), Charset: 63, ColType: wire.TypeLongLong, Flags: wire.FlagBinary}
		for range st.params {
			c.pc.End(wire.AppendColumnDef(c.pc.Begin(), &param))
		}
		if !c.deprecateEOF {
			c.pc.End(wire.AppendEOF(c.pc.Begin(), wire.ServerStatusAutocommit))
		}
	}
	if ok.Columns > 0 {
		for i := range outCols {
			c.pc.End(c.appendOutColumn(c.pc.Begin(), st.tq, &outCols[i]))
		}
		for i := range cols {
			c.pc.End(wire.AppendColumnDef(c.pc.Begin(), &cols[i]))
		}
		if !c.deprecateEOF {
			c.pc.End(wire.AppendEOF(c.pc.Begin(), wire.ServerStatusAutocommit))
		}
	}
	return c.pc.Flush()
}

// execute answers COM_STMT_EXECUTE after checking that the parameter block
// is well formed (MySQL Source Code Documentation, COM_STMT_EXECUTE).
func (c *serverConn) execute(b []byte) error {
	st, err := c.parseExecute(b)
	if err != nil {
		var se *wire.ServerError
		if errors.As(err, &se) {
			return c.sendErr(se.Code, se.State, se.Message)
		}
		return c.sendErr(wire.ErWrongArguments, "HY000", "Incorrect arguments to mysqld_stmt_execute")
	}
	c.service()
	i := 0
	if c.deprecateEOF {
		i = 1
	}
	r := &c.s.ok[i]
	switch st.class {
	case sqlread.ClassTable:
		if st.tq.verb == verbSelect {
			return c.runSelect(st.tq, true)
		}
		return c.runWrite(st.tq)
	case sqlread.ClassExpr:
		if !st.expr.constant {
			// NOW(), CONNECTION_ID()...: evaluated afresh.
			return c.answerExpr([]byte(st.sql), true)
		}
		r = &st.expr.bin[i]
	}
	return c.pc.WriteRaw(r.frames, r.packets)
}

func (c *serverConn) parseExecute(b []byte) (*serverStmt, error) {
	d := wire.Decoder{B: b, What: "COM_STMT_EXECUTE"}
	id := d.U32("statement id")
	d.U8("flags")
	d.U32("iteration count")
	if d.Err != nil {
		return nil, d.Err
	}
	st := c.stmts[id]
	if st == nil {
		return nil, &wire.ServerError{Code: wire.ErUnknownStmtHandler, State: "HY000", Message: "Unknown prepared statement handler given to mysqld_stmt_execute"}
	}
	c.params = c.params[:0]
	if st.params == 0 {
		return st, nil
	}
	nulls := d.Bytes((st.params+7)/8, "NULL bitmap")
	if d.U8("new-params-bound flag") == 1 {
		st.types = append(st.types[:0], d.Bytes(2*st.params, "parameter types")...)
	}
	if d.Err != nil {
		return nil, d.Err
	}
	if len(st.types) != 2*st.params {
		return nil, errors.New("mysql: decode COM_STMT_EXECUTE: parameters never bound")
	}
	for i := range st.params {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			c.params = append(c.params, param{null: true})
			continue
		}
		c.params = append(c.params, decodeParam(&d, st.types[2*i], st.types[2*i+1]&0x80 != 0))
	}
	return st, d.Err
}

// decodeParam reads one bound value: integers as numbers, the rest as
// their bytes (a temporal or floating value is kept only for framing).
func decodeParam(d *wire.Decoder, t uint8, unsigned bool) param {
	switch t {
	case wire.TypeDate, wire.TypeDateTime, wire.TypeTimestamp, wire.TypeTime:
		return param{b: d.Bytes(int(d.U8("temporal length")), "temporal value")}
	case wire.TypeTiny, wire.TypeShort, wire.TypeYear, wire.TypeLong, wire.TypeInt24, wire.TypeLongLong:
		n := wire.BinaryValueLen(t)
		b := d.Bytes(n, "parameter value")
		if d.Err != nil {
			return param{}
		}
		var u uint64
		for i := n - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		v := int64(u)
		if !unsigned && n < 8 && u&(1<<(8*n-1)) != 0 {
			v -= 1 << (8 * n) // sign-extend
		}
		return param{isInt: true, i: v}
	}
	if n := wire.BinaryValueLen(t); n >= 0 {
		return param{b: d.Bytes(n, "parameter value")}
	}
	b, _ := d.LenEncBytes("parameter value")
	return param{b: b}
}

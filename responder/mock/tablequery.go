package mock

import (
	"bytes"

	"github.com/hoplat/hoplat/mysql/sbtable"
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// tableQuery answers a COM_QUERY on a sysbench table. The statement is
// parsed into the connection's reused tableStmt, so the point select
// allocates nothing.
func (c *serverConn) tableQuery(sql []byte) error {
	st := &c.tq
	if serr := parseTableStmt(sql, st); serr != nil {
		return c.sendServerError(serr)
	}
	if st.params > 0 {
		// A placeholder outside a prepared statement is a syntax error.
		return c.sendServerError(sqlread.SyntaxError(sql[st.firstParam:]))
	}
	if serr := c.resolve(st); serr != nil {
		return c.sendServerError(serr)
	}
	c.params = c.params[:0]
	if st.verb == verbSelect {
		return c.runSelect(st, false)
	}
	return c.runWrite(st)
}

// fieldList answers COM_FIELD_LIST (a table name, NUL, a wildcard): the
// table's column definitions, each followed by its default value, then
// an EOF; 1146 for a table the server does not hold.
func (c *serverConn) fieldList(b []byte) error {
	name := b
	if i := bytes.IndexByte(b, 0); i >= 0 {
		name = b[:i]
	}
	st := &tableStmt{src: name, verb: verbSelect, table: sqlread.Span{Start: 0, End: int32(len(name))}, items: []selItem{{star: true}}}
	if serr := c.resolve(st); serr != nil {
		return c.sendServerError(serr)
	}
	cols := c.resultColumns(st)
	for i := range cols {
		p := c.appendOutColumn(c.pc.Begin(), st, &cols[i])
		switch cols[i].col {
		case sbtable.ID:
			p = append(p, wire.LenencNull) // AUTO_INCREMENT: no default
		case sbtable.K:
			p = wire.AppendLenEncString(p, "0")
		default:
			p = wire.AppendLenEncString(p, "")
		}
		c.pc.End(p)
	}
	endResultSet(c.pc, c.deprecateEOF)
	return c.pc.Flush()
}

package mysql

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
		return c.sendServerError(syntaxError(sql[st.firstParam:]))
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

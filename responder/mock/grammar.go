package mock

import (
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// parser is the mock's one reading of SQL, over the one lexer every
// statement goes through: names and reserved words, the select list and
// its aliases, FROM, WHERE, ORDER BY, LIMIT, the statement's end, and the
// syntax error at the first token it cannot take. One SELECT grammar
// serves both kinds of statement the mock runs: without a table (ctx
// set) each item is an expression, evaluated as it is read (expr.go);
// on a sysbench table (st set) the statement is parsed into st, whose
// slices a connection reuses (tableparse.go).
type parser struct {
	sqlread.Lexer
	err *wire.ServerError
	// params counts placeholders where a statement may hold them (one on
	// a table, which may be prepared); nil where a placeholder is a syntax
	// error.
	params *placeholders
	ctx    *evalContext // a SELECT without a table: what its expressions read
	st     *tableStmt   // a statement on a table: what it parses into
}

// placeholders is how many '?' a statement holds and where the first is.
type placeholders struct {
	params     int
	firstParam int32
}

// fail records a syntax error at the current token, as mysqld quotes the
// text from the first token it could not take.
func (p *parser) fail() {
	if p.err == nil {
		p.err = sqlread.SyntaxError(p.Rest())
	}
}

func (p *parser) ok() bool { return p.err == nil }

// expect takes the keyword kw, failing without it, and reports whether
// the statement still reads without error.
func (p *parser) expect(kw sqlread.Keyword) bool {
	if !p.Accept(kw) {
		p.fail()
	}
	return p.ok()
}

// expectOp takes the operator op as expect takes a keyword.
func (p *parser) expectOp(op byte) bool {
	if !p.AcceptOp(op) {
		p.fail()
	}
	return p.ok()
}

// list reads item {, item}, up to the first error.
func (p *parser) list(item func()) {
	for p.ok() {
		item()
		if !p.AcceptOp(',') {
			return
		}
	}
}

// end takes the statement's end: an optional ';', then nothing.
func (p *parser) end() {
	p.AcceptOp(';')
	if p.Tok.Kind != sqlread.TokEOF {
		p.fail()
	}
}

// reservedWords end a select item or a table reference instead of naming
// it.
var reservedWords = func() (t [256]bool) {
	for _, k := range []sqlread.Keyword{sqlread.KwFrom, sqlread.KwWhere, sqlread.KwOrder, sqlread.KwLimit, sqlread.KwFor,
		sqlread.KwLock, sqlread.KwGroup, sqlread.KwHaving, sqlread.KwUnion, sqlread.KwSet, sqlread.KwValues, sqlread.KwValue,
		sqlread.KwAnd, sqlread.KwOr, sqlread.KwNot, sqlread.KwBetween, sqlread.KwIn, sqlread.KwOn, sqlread.KwJoin,
		sqlread.KwInner, sqlread.KwLeft, sqlread.KwRight, sqlread.KwCross, sqlread.KwNatural, sqlread.KwUsing,
		sqlread.KwInto, sqlread.KwProcedure, sqlread.KwWindow, sqlread.KwOffset, sqlread.KwAsc, sqlread.KwDesc} {
		t[k] = true
	}
	return t
}()

func (p *parser) isReserved() bool {
	return p.Tok.Kind == sqlread.TokIdent && !p.Tok.Quoted && reservedWords[p.Tok.Kw]
}

// word reads an identifier, plain or in backquotes, reserved or not; a
// plain one does not start with a digit (the lexer's 1abc: the mock has
// no such names).
func (p *parser) word() (sqlread.Token, bool) {
	t := p.Tok
	if t.Kind != sqlread.TokIdent || !t.Quoted && '0' <= p.Src[t.Start] && p.Src[t.Start] <= '9' {
		return sqlread.Token{}, false
	}
	p.Next()
	return t, true
}

// name reads a word that is not a reserved word.
func (p *parser) name() (sqlread.Token, bool) {
	if p.isReserved() {
		return sqlread.Token{}, false
	}
	return p.word()
}

// ident reads a name, failing without one.
func (p *parser) ident() sqlread.Span {
	t, ok := p.name()
	if !ok {
		p.fail()
		return sqlread.Span{}
	}
	return p.Name(t)
}

// selectStmt reads a SELECT after its keyword:
//
//	[options] item [[AS] alias] {, item [[AS] alias]}
//	[FROM DUAL | FROM table [WHERE ...] [ORDER BY ...]] [LIMIT ...]
//	[FOR UPDATE | LOCK IN SHARE MODE]
//
// Without a table (p.st nil) an item is an expression, evaluated into the
// result returned, FROM may name DUAL alone and nothing follows but LIMIT:
// its one row is dropped under LIMIT 0. On a table an item is a column or
// an aggregate, FROM the table is needed, and the statement goes into
// p.st. It returns nil at the first error.
func (p *parser) selectStmt() *exprResult {
	distinct := p.selectOptions() // one row without a table: DISTINCT changes nothing
	st := p.st
	var r *exprResult
	if st == nil {
		r = &exprResult{}
	} else {
		st.distinct = distinct
	}
	p.list(func() {
		if st == nil {
			p.exprItem(r)
		} else {
			p.tableItem()
		}
	})
	if !p.ok() {
		return nil
	}
	if st == nil {
		if p.Accept(sqlread.KwFrom) && !p.Accept(sqlread.KwDual) {
			p.fail()
		}
		if limit, _, ok := p.limit(true); ok {
			r.noRows = limit.I == 0
		}
	} else {
		p.expect(sqlread.KwFrom)
		p.tableRef()
		p.whereOrderLimit(true)
		p.locking()
	}
	if !p.ok() {
		return nil
	}
	return r
}

// locking reads [FOR UPDATE | LOCK IN SHARE MODE]: the mock has no other
// transaction to wait for.
func (p *parser) locking() {
	switch {
	case p.Accept(sqlread.KwFor):
		p.expect(sqlread.KwUpdate)
	case p.Accept(sqlread.KwLock):
		_ = p.expect(sqlread.KwIn) && p.expect(sqlread.KwShare) && p.expect(sqlread.KwMode)
	}
}

// alias reads a select item's alias: after AS, which needs one, or in its
// place, a quoted string or a name.
func (p *parser) alias() (sqlread.Token, bool) {
	as := p.Accept(sqlread.KwAs)
	if t := p.Tok; t.Kind == sqlread.TokString {
		p.Next()
		return t, true
	}
	t, ok := p.name()
	if !ok && as {
		p.fail()
	}
	return t, ok
}

// aliasSpan is where an alias's text lies: a string's between its quotes,
// a name's. The statement keeps spans, not copies, so a string holding
// escapes, whose text would need rewriting, is refused.
func (p *parser) aliasSpan(t sqlread.Token) sqlread.Span {
	if t.Kind == sqlread.TokString {
		if t.Quoted {
			p.err = sqlread.SyntaxError(p.Src[t.Start:])
			return sqlread.Span{}
		}
		return sqlread.Span{Start: t.Start + 1, End: t.End - 1}
	}
	return p.Name(t)
}

// aliasText is an alias's text as a string: a quoted one's value,
// escapes and all, or a name's.
func (p *parser) aliasText(t sqlread.Token) string {
	if t.Kind == sqlread.TokString {
		return string(p.StringOf(nil, t))
	}
	return p.Ident(t)
}

// selectOptions reads the words between SELECT and its first item and
// reports whether DISTINCT (or DISTINCTROW) was among them.
func (p *parser) selectOptions() (distinct bool) {
	for {
		switch {
		case p.Accept(sqlread.KwDistinct), p.Accept(sqlread.KwDistinctrow):
			distinct = true
		case p.Accept(sqlread.KwAll), p.Accept(sqlread.KwSqlNoCache), p.Accept(sqlread.KwSqlCache), p.Accept(sqlread.KwHighPriority),
			p.Accept(sqlread.KwStraightJoin), p.Accept(sqlread.KwSqlCalcFoundRows):
		default:
			return distinct
		}
	}
}

// limit reads [LIMIT n], and where offsets may follow (a SELECT's),
// [LIMIT n OFFSET m | LIMIT m, n].
func (p *parser) limit(offsets bool) (limit, offset sqlread.Value, has bool) {
	if !p.ok() || !p.Accept(sqlread.KwLimit) {
		return limit, offset, false
	}
	limit = p.count()
	if offsets && p.AcceptOp(',') {
		offset, limit = limit, p.count()
	} else if offsets && p.Accept(sqlread.KwOffset) {
		offset = p.count()
	}
	return limit, offset, true
}

// count reads a LIMIT or OFFSET: an integer, or a placeholder where the
// statement may hold them.
func (p *parser) count() sqlread.Value {
	t := p.Tok
	switch {
	case t.Kind == sqlread.TokInt:
		p.Next()
		return sqlread.IntValue(t.N)
	case t.Kind == sqlread.TokParam && p.params != nil:
		return p.param()
	}
	p.fail()
	return sqlread.Value{}
}

// param takes a placeholder, numbered from 0 in the statement's order.
func (p *parser) param() sqlread.Value {
	ps := p.params
	if ps.params == 0 {
		ps.firstParam = p.Tok.Start
	}
	v := sqlread.Value{Kind: sqlread.Param, I: int64(ps.params)}
	ps.params++
	p.Next()
	return v
}

// colRef reads a column: [qualifier.]name.
func (p *parser) colRef() colRef {
	var c colRef
	c.name = p.ident()
	if p.ok() && p.AcceptOp('.') {
		c.qual = c.name
		if p.IsOp('*') {
			p.fail()
			return c
		}
		c.name = p.ident()
	}
	return c
}

// tableRef reads the statement's table: [schema.]name [[AS] alias].
func (p *parser) tableRef() {
	if !p.ok() {
		return
	}
	st := p.st
	st.table = p.ident()
	if p.ok() && p.AcceptOp('.') {
		st.schema = st.table
		st.table = p.ident()
	}
	if p.Accept(sqlread.KwAs) {
		st.as = p.ident()
	} else if t, ok := p.name(); ok {
		st.as = p.Name(t)
	}
}

// whereOrderLimit reads what may follow the table of a SELECT, UPDATE
// or DELETE: [WHERE ...] [ORDER BY ...] [LIMIT ...], LIMIT's offsets only
// where they may follow (a SELECT's).
func (p *parser) whereOrderLimit(offsets bool) {
	p.where()
	p.orderBy()
	st := p.st
	st.limit, st.offset, st.hasLimit = p.limit(offsets)
}

// where reads [WHERE cond {AND|OR cond}]: ORs of ANDs, each OR marked on
// the condition after it.
func (p *parser) where() {
	st := p.st
	if !p.Accept(sqlread.KwWhere) {
		return
	}
	or := false
	for p.ok() {
		p.condition()
		if or && p.ok() {
			st.where[len(st.where)-1].or = true
		}
		if or = p.Accept(sqlread.KwOr); !or && !p.Accept(sqlread.KwAnd) {
			break
		}
	}
}

// orderBy reads [ORDER BY col [ASC|DESC] {, ...}].
func (p *parser) orderBy() {
	if !p.ok() || !p.Accept(sqlread.KwOrder) {
		return
	}
	p.expect(sqlread.KwBy)
	p.list(func() {
		k := orderKey{col: p.colRef()}
		if p.Accept(sqlread.KwDesc) {
			k.desc = true
		} else {
			p.Accept(sqlread.KwAsc)
		}
		p.st.order = append(p.st.order, k)
	})
}

// condition reads one condition of a WHERE: col op value,
// col [NOT] BETWEEN value AND value, or col [NOT] IN (value {, value}).
func (p *parser) condition() {
	st := p.st
	c := pred{col: p.colRef()}
	if !p.ok() {
		return
	}
	c.not = p.Accept(sqlread.KwNot)
	switch {
	case p.Accept(sqlread.KwBetween):
		c.op = predBetween
		c.a = p.value()
		p.expect(sqlread.KwAnd)
		c.b = p.value()
	case p.Accept(sqlread.KwIn):
		c.op = predIn
		p.expectOp('(')
		c.in = len(st.inList)
		p.list(func() { st.inList = append(st.inList, p.value()) })
		c.to = len(st.inList)
		p.expectOp(')')
	case c.not:
		p.fail()
	default:
		op, ok := p.comparison()
		if !ok {
			p.fail()
		}
		c.op = predOp(op)
		c.a = p.value()
	}
	st.where = append(st.where, c)
}

// comparison takes a comparison operator (=, <> or !=, <, <=, >, >=)
// and returns it as the lexer names it.
func (p *parser) comparison() (byte, bool) {
	if p.Tok.Kind == sqlread.TokOp {
		switch op := p.Tok.Op; op {
		case '=', sqlread.OpNE, '<', sqlread.OpLE, '>', sqlread.OpGE:
			p.Next()
			return op, true
		}
	}
	return 0, false
}

// value reads a literal or a placeholder.
func (p *parser) value() sqlread.Value {
	if !p.ok() {
		return sqlread.Value{}
	}
	t := p.Tok
	neg := false
	if p.IsOp('-') || p.IsOp('+') {
		neg = p.IsOp('-')
		p.Next()
		t = p.Tok
		if t.Kind != sqlread.TokInt {
			p.fail()
			return sqlread.Value{}
		}
	}
	var v sqlread.Value
	switch {
	case t.Kind == sqlread.TokInt:
		v = sqlread.Value{Kind: sqlread.Int, I: t.N}
		if neg {
			v.I = -v.I
		}
	case t.Kind == sqlread.TokString:
		v = sqlread.Value{Kind: sqlread.String, Lit: sqlread.Span{Start: t.Start + 1, End: t.End - 1}, Escaped: t.Quoted}
	case t.Kind == sqlread.TokParam:
		return p.param()
	case p.Is(sqlread.KwNull):
		v = sqlread.Value{Kind: sqlread.Null}
	case p.Is(sqlread.KwDefault):
		v = sqlread.Value{Kind: sqlread.Default}
	default:
		p.fail()
		return sqlread.Value{}
	}
	p.Next()
	return v
}

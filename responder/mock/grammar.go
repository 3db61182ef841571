package mock

import (
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// grammar is the one reading of SELECT the mock has, over the one lexer
// every statement goes through: names and reserved words, aliases, the
// options after SELECT, LIMIT's counts, the statement's end, and the
// syntax error at the first token it cannot take. Two readers build on
// it: exprParser evaluates a SELECT without a table (expr.go) and
// tableParser parses the sysbench tables' dialect into a tableStmt
// (tableparse.go).
type grammar struct {
	sqlread.Lexer
	err *wire.ServerError
	// params counts placeholders where a statement may hold them (one on
	// a table, which may be prepared); nil where a placeholder is a syntax
	// error.
	params *placeholders
}

// placeholders is how many '?' a statement holds and where the first is.
type placeholders struct {
	params     int
	firstParam int32
}

// fail records a syntax error at the current token, as mysqld quotes the
// text from the first token it could not take.
func (g *grammar) fail() {
	if g.err == nil {
		g.err = sqlread.SyntaxError(g.Rest())
	}
}

func (g *grammar) ok() bool { return g.err == nil }

// end takes the statement's end: an optional ';', then nothing.
func (g *grammar) end() {
	g.AcceptOp(';')
	if g.Tok.Kind != sqlread.TokEOF {
		g.fail()
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

func (g *grammar) isReserved() bool {
	return g.Tok.Kind == sqlread.TokIdent && !g.Tok.Quoted && reservedWords[g.Tok.Kw]
}

// word reads an identifier, plain or in backquotes, reserved or not; a
// plain one does not start with a digit (the lexer's 1abc: the mock has
// no such names).
func (g *grammar) word() (sqlread.Token, bool) {
	t := g.Tok
	if t.Kind != sqlread.TokIdent || !t.Quoted && '0' <= g.Src[t.Start] && g.Src[t.Start] <= '9' {
		return sqlread.Token{}, false
	}
	g.Next()
	return t, true
}

// name reads a word that is not a reserved word.
func (g *grammar) name() (sqlread.Token, bool) {
	if g.isReserved() {
		return sqlread.Token{}, false
	}
	return g.word()
}

// ident reads a name, failing without one.
func (g *grammar) ident() sqlread.Span {
	t, ok := g.name()
	if !ok {
		g.fail()
		return sqlread.Span{}
	}
	return g.Name(t)
}

// alias reads a select item's alias: after AS, which needs one, or in its
// place, a quoted string or a name.
func (g *grammar) alias() (sqlread.Token, bool) {
	as := g.Accept(sqlread.KwAs)
	if t := g.Tok; t.Kind == sqlread.TokString {
		g.Next()
		return t, true
	}
	t, ok := g.name()
	if !ok && as {
		g.fail()
	}
	return t, ok
}

// selectOptions reads the words between SELECT and its first item and
// reports whether DISTINCT (or DISTINCTROW) was among them.
func (g *grammar) selectOptions() (distinct bool) {
	for {
		switch {
		case g.Accept(sqlread.KwDistinct), g.Accept(sqlread.KwDistinctrow):
			distinct = true
		case g.Accept(sqlread.KwAll), g.Accept(sqlread.KwSqlNoCache), g.Accept(sqlread.KwSqlCache), g.Accept(sqlread.KwHighPriority),
			g.Accept(sqlread.KwStraightJoin), g.Accept(sqlread.KwSqlCalcFoundRows):
		default:
			return distinct
		}
	}
}

// limit reads [LIMIT n], and where offsets may follow (a SELECT's),
// [LIMIT n OFFSET m | LIMIT m, n].
func (g *grammar) limit(offsets bool) (limit, offset sqlread.Value, has bool) {
	if !g.ok() || !g.Accept(sqlread.KwLimit) {
		return limit, offset, false
	}
	limit = g.count()
	if offsets && g.AcceptOp(',') {
		offset, limit = limit, g.count()
	} else if offsets && g.Accept(sqlread.KwOffset) {
		offset = g.count()
	}
	return limit, offset, true
}

// count reads a LIMIT or OFFSET: an integer, or a placeholder where the
// statement may hold them.
func (g *grammar) count() sqlread.Value {
	t := g.Tok
	switch {
	case t.Kind == sqlread.TokInt:
		g.Next()
		return sqlread.IntValue(t.N)
	case t.Kind == sqlread.TokParam && g.params != nil:
		return g.param()
	}
	g.fail()
	return sqlread.Value{}
}

// param takes a placeholder, numbered from 0 in the statement's order.
func (g *grammar) param() sqlread.Value {
	ps := g.params
	if ps.params == 0 {
		ps.firstParam = g.Tok.Start
	}
	v := sqlread.Value{Kind: sqlread.Param, I: int64(ps.params)}
	ps.params++
	g.Next()
	return v
}

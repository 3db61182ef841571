package mock

import (
	"github.com/hoplat/hoplat/mysql/sbtable"
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// The dialect the mock runs on sysbench's tables, parsed by recursive
// descent into a tableStmt whose slices a connection reuses, so the point
// select parses without allocating:
//
//	SELECT [DISTINCT] item {, item} FROM table [WHERE cond {AND cond}]
//	       [ORDER BY col [ASC|DESC] {, ...}] [LIMIT n [OFFSET m] | LIMIT m, n]
//	       [FOR UPDATE | LOCK IN SHARE MODE]
//	(cond := cond {AND cond} {OR cond {AND cond}}, no parentheses)
//	UPDATE table SET col = value | col = col (+|-) value {, ...} [WHERE ...] [LIMIT n]
//	DELETE FROM table [WHERE ...] [LIMIT n]
//	INSERT|REPLACE [IGNORE] [INTO] table [(col {, col})] VALUES (value {, value}) {, (...)}
//
//	item  := * | col | COUNT(*) | (COUNT|SUM|AVG|MIN|MAX)([DISTINCT] col), each [[AS] alias]
//	cond  := col op value | col [NOT] BETWEEN value AND value | col [NOT] IN (value {, value})
//	value := [-]integer | 'string' | ? | NULL | DEFAULT
//	col   := [qualifier.]name;  table := [schema.]name [[AS] alias]
//
// Anything else is a syntax error (1064) at the first token outside it.

type verb uint8

const (
	verbSelect verb = iota + 1
	verbUpdate
	verbDelete
	verbInsert
)

type aggKind uint8

const (
	aggNone aggKind = iota
	aggCount
	aggSum
	aggAvg
	aggMin
	aggMax
)

type colRef struct {
	qual, name sqlread.Span // as written, backquotes removed
	col        sbtable.Column
}

type predOp uint8

const (
	predEq predOp = iota + 1
	predNE
	predLT
	predLE
	predGT
	predGE
	predBetween
	predIn
)

type pred struct {
	col    colRef
	op     predOp
	not    bool
	or     bool // the first condition after an OR: AND binds tighter
	a, b   sqlread.Value
	in, to int // predIn: st.inList[in:to]
}

type selItem struct {
	agg      aggKind
	star     bool // * or COUNT(*)
	distinct bool // COUNT(DISTINCT col)...
	col      colRef
	name     sqlread.Span // the column's name in the result: the alias or the text
}

type orderKey struct {
	col  colRef
	desc bool
}

type setItem struct {
	col    colRef
	src    colRef // col = src + delta when hasSrc
	hasSrc bool
	neg    bool
	v      sqlread.Value
}

// tableStmt is one parsed statement on a sysbench table.
type tableStmt struct {
	src               []byte
	verb              verb
	schema, table, as sqlread.Span
	distinct          bool
	items             []selItem
	where             []pred
	inList            []sqlread.Value
	order             []orderKey
	limit, offset     sqlread.Value
	hasLimit          bool
	sets              []setItem
	insCols           []colRef
	insVals           []sqlread.Value // insRows rows of len(insCols) values
	insRows           int
	placeholders
	tbl sbtable.Table // resolved
	// header is a prepared SELECT's column count and definitions, framed
	// from sequence id 1 once for its connection.
	header     canned
	tableIndex int // resolved: 0 for sbtest1
}

// tableParser reads the dialect above on the mock's one grammar.
type tableParser struct {
	grammar
	st *tableStmt
}

func (st *tableStmt) reset(src []byte) {
	*st = tableStmt{src: src, items: st.items[:0], where: st.where[:0], inList: st.inList[:0],
		order: st.order[:0], sets: st.sets[:0], insCols: st.insCols[:0], insVals: st.insVals[:0]}
}

// parseTableStmt parses sql into st, reusing st's slices.
func parseTableStmt(sql []byte, st *tableStmt) *wire.ServerError {
	st.reset(sql)
	p := tableParser{st: st}
	p.params = &st.placeholders
	p.Init(sql)
	switch {
	case p.Accept(sqlread.KwSelect):
		st.verb = verbSelect
		p.selectStmt()
	case p.Accept(sqlread.KwUpdate):
		st.verb = verbUpdate
		p.updateStmt()
	case p.Accept(sqlread.KwDelete):
		st.verb = verbDelete
		if !p.Accept(sqlread.KwFrom) {
			p.fail()
		}
		p.tableRef()
		p.whereOrderLimit(false)
	case p.Accept(sqlread.KwInsert), p.Accept(sqlread.KwReplace):
		st.verb = verbInsert
		p.insertStmt()
	default:
		p.fail()
	}
	if p.ok() {
		p.end()
	}
	return p.err
}

func (p *tableParser) selectStmt() {
	p.st.distinct = p.selectOptions()
	for p.ok() {
		p.selectItem()
		if !p.AcceptOp(',') {
			break
		}
	}
	if !p.Accept(sqlread.KwFrom) {
		p.fail()
	}
	p.tableRef()
	p.whereOrderLimit(true)
	switch {
	case p.Accept(sqlread.KwFor):
		if !p.Accept(sqlread.KwUpdate) {
			p.fail()
		}
	case p.Accept(sqlread.KwLock):
		if !p.Accept(sqlread.KwIn) || !p.Accept(sqlread.KwShare) || !p.Accept(sqlread.KwMode) {
			p.fail()
		}
	}
}

var aggNames = [...]struct {
	name sqlread.Keyword
	agg  aggKind
}{{sqlread.KwCount, aggCount}, {sqlread.KwSum, aggSum}, {sqlread.KwAvg, aggAvg}, {sqlread.KwMin, aggMin}, {sqlread.KwMax, aggMax}}

func (p *tableParser) selectItem() {
	if !p.ok() {
		return
	}
	it := selItem{}
	start := p.Tok.Start
	if p.IsOp('*') {
		it.star = true
		p.Next()
	} else {
		for _, a := range aggNames {
			if p.Is(a.name) && p.FollowedBy('(') {
				// MySQL takes COUNT( as a call only with no blank before
				// the parenthesis (IGNORE_SPACE off).
				it.agg = a.agg
				p.Next()
				p.Next()
				if p.Accept(sqlread.KwDistinct) {
					it.distinct = true
				}
				if a.agg == aggCount && !it.distinct && p.AcceptOp('*') {
					it.star = true
				} else {
					it.col = p.colRef()
				}
				if !p.AcceptOp(')') {
					p.fail()
				}
				break
			}
		}
		if it.agg == aggNone {
			it.col = p.colRef()
		}
	}
	if !p.ok() {
		return
	}
	it.name = sqlread.Span{Start: start, End: p.PrevEnd}
	if !it.star && it.agg == aggNone {
		it.name = it.col.name // mysqld names a column by itself, qualifier dropped
	}
	if t, ok := p.alias(); ok {
		it.name = p.aliasSpan(t)
	}
	p.st.items = append(p.st.items, it)
}

// aliasSpan is where an alias's text lies: a string's between its quotes,
// a name's. The statement keeps spans, not copies, so a string holding
// escapes, whose text would need rewriting, is refused.
func (p *tableParser) aliasSpan(t sqlread.Token) sqlread.Span {
	if t.Kind == sqlread.TokString {
		if t.Quoted {
			p.err = sqlread.SyntaxError(p.Src[t.Start:])
			return sqlread.Span{}
		}
		return sqlread.Span{Start: t.Start + 1, End: t.End - 1}
	}
	return p.Name(t)
}

func (p *tableParser) colRef() colRef {
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

func (p *tableParser) tableRef() {
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

func (p *tableParser) whereOrderLimit(order bool) {
	st := p.st
	if p.Accept(sqlread.KwWhere) {
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
	if p.ok() && p.Accept(sqlread.KwOrder) {
		if !p.Accept(sqlread.KwBy) {
			p.fail()
		}
		for p.ok() {
			k := orderKey{col: p.colRef()}
			if p.Accept(sqlread.KwDesc) {
				k.desc = true
			} else {
				p.Accept(sqlread.KwAsc)
			}
			st.order = append(st.order, k)
			if !p.AcceptOp(',') {
				break
			}
		}
	}
	st.limit, st.offset, st.hasLimit = p.limit(order)
}

func (p *tableParser) condition() {
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
		if !p.Accept(sqlread.KwAnd) {
			p.fail()
		}
		c.b = p.value()
	case p.Accept(sqlread.KwIn):
		c.op = predIn
		if !p.AcceptOp('(') {
			p.fail()
		}
		c.in = len(st.inList)
		for p.ok() {
			st.inList = append(st.inList, p.value())
			if !p.AcceptOp(',') {
				break
			}
		}
		c.to = len(st.inList)
		if !p.AcceptOp(')') {
			p.fail()
		}
	case c.not:
		p.fail()
	case p.Tok.Kind == sqlread.TokOp:
		switch p.Tok.Op {
		case '=':
			c.op = predEq
		case sqlread.OpNE:
			c.op = predNE
		case '<':
			c.op = predLT
		case sqlread.OpLE:
			c.op = predLE
		case '>':
			c.op = predGT
		case sqlread.OpGE:
			c.op = predGE
		default:
			p.fail()
		}
		p.Next()
		c.a = p.value()
	default:
		p.fail()
	}
	st.where = append(st.where, c)
}

// value reads a literal or a placeholder.
func (p *tableParser) value() sqlread.Value {
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

func (p *tableParser) updateStmt() {
	st := p.st
	p.Accept(sqlread.KwLowPriority)
	p.Accept(sqlread.KwIgnore)
	p.tableRef()
	if p.ok() && !p.Accept(sqlread.KwSet) {
		p.fail()
	}
	for p.ok() {
		s := setItem{col: p.colRef()}
		if !p.AcceptOp('=') {
			p.fail()
			return
		}
		if p.Tok.Kind == sqlread.TokIdent && !p.Is(sqlread.KwNull) && !p.Is(sqlread.KwDefault) {
			s.hasSrc = true
			s.src = p.colRef()
			switch {
			case p.AcceptOp('+'):
				s.v = p.value()
			case p.AcceptOp('-'):
				s.neg = true
				s.v = p.value()
			default:
				s.v = sqlread.Value{Kind: sqlread.Int}
			}
			if s.v.Kind != sqlread.Int && s.v.Kind != sqlread.Param {
				p.fail()
			}
		} else {
			s.v = p.value()
		}
		st.sets = append(st.sets, s)
		if !p.AcceptOp(',') {
			break
		}
	}
	p.whereOrderLimit(false)
}

func (p *tableParser) insertStmt() {
	st := p.st
	p.Accept(sqlread.KwLowPriority)
	p.Accept(sqlread.KwIgnore)
	p.Accept(sqlread.KwInto)
	p.tableRef()
	if p.ok() && p.AcceptOp('(') {
		for p.ok() {
			st.insCols = append(st.insCols, p.colRef())
			if !p.AcceptOp(',') {
				break
			}
		}
		if !p.AcceptOp(')') {
			p.fail()
		}
	}
	if p.ok() && !p.Accept(sqlread.KwValues) && !p.Accept(sqlread.KwValue) {
		p.fail()
	}
	width := -1
	for p.ok() {
		if !p.AcceptOp('(') {
			p.fail()
			return
		}
		n := 0
		for p.ok() && !p.IsOp(')') {
			st.insVals = append(st.insVals, p.value())
			n++
			if !p.AcceptOp(',') {
				break
			}
		}
		if !p.AcceptOp(')') {
			p.fail()
			return
		}
		if width < 0 {
			width = n
		} else if n != width && p.ok() {
			// mysqld counts rows from 1 in this message.
			p.err = columnCountError(st.insRows + 1)
		}
		st.insRows++
		if !p.AcceptOp(',') {
			break
		}
	}
}

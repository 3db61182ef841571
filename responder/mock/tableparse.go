package mock

import (
	"github.com/hoplat/hoplat/mysql/sbtable"
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// The dialect the mock runs on sysbench's tables, read by the mock's one
// parser (grammar.go; its SELECT is also the SELECT without a table) into
// a tableStmt whose slices a connection reuses, so the point select parses
// without allocating:
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

// predOp is a condition's operator: a comparison, as the lexer names it
// and holds reads it, BETWEEN or IN.
type predOp uint8

const (
	predEq      = predOp('=')
	predNE      = predOp(sqlread.OpNE)
	predLT      = predOp('<')
	predLE      = predOp(sqlread.OpLE)
	predGT      = predOp('>')
	predGE      = predOp(sqlread.OpGE)
	predBetween = predOp(0x80) // beyond the lexer's operators
	predIn      = predOp(0x81)
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

func (st *tableStmt) reset(src []byte) {
	*st = tableStmt{src: src, items: st.items[:0], where: st.where[:0], inList: st.inList[:0],
		order: st.order[:0], sets: st.sets[:0], insCols: st.insCols[:0], insVals: st.insVals[:0]}
}

// parseTableStmt parses sql into st, reusing st's slices.
func parseTableStmt(sql []byte, st *tableStmt) *wire.ServerError {
	st.reset(sql)
	p := parser{st: st, params: &st.placeholders}
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
		p.expect(sqlread.KwFrom)
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

var aggNames = [...]struct {
	name sqlread.Keyword
	agg  aggKind
}{{sqlread.KwCount, aggCount}, {sqlread.KwSum, aggSum}, {sqlread.KwAvg, aggAvg}, {sqlread.KwMin, aggMin}, {sqlread.KwMax, aggMax}}

// tableItem reads one item of a select list on a table: *, a column, or
// an aggregate on one, named by its alias, else by its text (a column by
// its name, qualifier dropped, as mysqld names it).
func (p *parser) tableItem() {
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
				p.expectOp(')')
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

func (p *parser) updateStmt() {
	st := p.st
	p.Accept(sqlread.KwLowPriority)
	p.Accept(sqlread.KwIgnore)
	p.tableRef()
	p.expect(sqlread.KwSet)
	p.list(func() {
		s := setItem{col: p.colRef()}
		if !p.expectOp('=') {
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
	})
	p.whereOrderLimit(false)
}

func (p *parser) insertStmt() {
	st := p.st
	p.Accept(sqlread.KwLowPriority)
	p.Accept(sqlread.KwIgnore)
	p.Accept(sqlread.KwInto)
	p.tableRef()
	if p.ok() && p.AcceptOp('(') {
		p.list(func() { st.insCols = append(st.insCols, p.colRef()) })
		p.expectOp(')')
	}
	if p.ok() && !p.Accept(sqlread.KwValues) && !p.Accept(sqlread.KwValue) {
		p.fail()
	}
	width := -1
	p.list(func() {
		if !p.expectOp('(') {
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
		if !p.expectOp(')') {
			return
		}
		if width < 0 {
			width = n
		} else if n != width && p.ok() {
			// mysqld counts rows from 1 in this message.
			p.err = columnCountError(st.insRows + 1)
		}
		st.insRows++
	})
}

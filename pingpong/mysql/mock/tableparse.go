package mock

import (
	"github.com/hoplat/hoplat/pingpong/mysql/sbtable"
	"github.com/hoplat/hoplat/pingpong/mysql/wire"
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

type valKind uint8

const (
	valueInt valKind = iota + 1
	valueString
	valueNull
	valueParam
	valueDefault
)

// operand is a literal or a placeholder.
type operand struct {
	kind    valKind
	escaped bool  // a string holding backslash escapes or doubled quotes
	i       int64 // valueInt; valueParam: the placeholder's index
	s       span  // valueString: the text between the quotes
}

type colRef struct {
	qual, name span // as written, backquotes removed
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
	a, b   operand
	in, to int // predIn: st.inList[in:to]
}

type selItem struct {
	agg      aggKind
	star     bool // * or COUNT(*)
	distinct bool // COUNT(DISTINCT col)...
	col      colRef
	name     span // the column's name in the result: the alias or the text
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
	v      operand
}

// tableStmt is one parsed statement on a sysbench table.
type tableStmt struct {
	src               []byte
	verb              verb
	schema, table, as span
	distinct          bool
	items             []selItem
	where             []pred
	inList            []operand
	order             []orderKey
	limit, offset     operand
	hasLimit          bool
	sets              []setItem
	insCols           []colRef
	insVals           []operand // insRows rows of len(insCols) values
	insRows           int
	params            int
	firstParam        int32         // where the first placeholder is
	tbl               sbtable.Table // resolved
	// header is a prepared SELECT's column count and definitions, framed
	// from sequence id 1 once for its connection.
	header     canned
	tableIndex int // resolved: 0 for sbtest1
}

type tableParser struct {
	lexer
	st  *tableStmt
	err *wire.ServerError
}

func (st *tableStmt) reset(src []byte) {
	*st = tableStmt{src: src, items: st.items[:0], where: st.where[:0], inList: st.inList[:0],
		order: st.order[:0], sets: st.sets[:0], insCols: st.insCols[:0], insVals: st.insVals[:0]}
}

// parseTableStmt parses sql into st, reusing st's slices.
func parseTableStmt(sql []byte, st *tableStmt) *wire.ServerError {
	st.reset(sql)
	p := tableParser{st: st}
	p.init(sql)
	switch {
	case p.accept(kwSelect):
		st.verb = verbSelect
		p.selectStmt()
	case p.accept(kwUpdate):
		st.verb = verbUpdate
		p.updateStmt()
	case p.accept(kwDelete):
		st.verb = verbDelete
		if !p.accept(kwFrom) {
			p.fail()
		}
		p.tableRef()
		p.whereOrderLimit(false)
	case p.accept(kwInsert), p.accept(kwReplace):
		st.verb = verbInsert
		p.insertStmt()
	default:
		p.fail()
	}
	p.acceptOp(';')
	if p.err == nil && p.tok.kind != tokEOF {
		p.fail()
	}
	return p.err
}

// fail records a syntax error at the current token, as mysqld quotes the
// text from the first token it could not take.
func (p *tableParser) fail() {
	if p.err == nil {
		p.err = syntaxError(p.src[p.tok.start:])
	}
}

func (p *tableParser) ok() bool { return p.err == nil }

func (p *tableParser) selectStmt() {
	st := p.st
	for {
		switch {
		case p.accept(kwDistinct), p.accept(kwDistinctrow):
			st.distinct = true
			continue
		case p.accept(kwAll), p.accept(kwSqlNoCache), p.accept(kwSqlCache), p.accept(kwHighPriority),
			p.accept(kwStraightJoin), p.accept(kwSqlCalcFoundRows):
			continue
		}
		break
	}
	for p.ok() {
		p.selectItem()
		if !p.acceptOp(',') {
			break
		}
	}
	if !p.accept(kwFrom) {
		p.fail()
	}
	p.tableRef()
	p.whereOrderLimit(true)
	switch {
	case p.accept(kwFor):
		if !p.accept(kwUpdate) {
			p.fail()
		}
	case p.accept(kwLock):
		if !p.accept(kwIn) || !p.accept(kwShare) || !p.accept(kwMode) {
			p.fail()
		}
	}
}

var aggNames = [...]struct {
	name keyword
	agg  aggKind
}{{kwCount, aggCount}, {kwSum, aggSum}, {kwAvg, aggAvg}, {kwMin, aggMin}, {kwMax, aggMax}}

func (p *tableParser) selectItem() {
	if !p.ok() {
		return
	}
	it := selItem{}
	start := p.tok.start
	if p.isOp('*') {
		it.star = true
		p.next()
	} else {
		for _, a := range aggNames {
			if p.is(a.name) && p.pos < len(p.src) && p.src[p.pos] == '(' {
				// MySQL takes COUNT( as a call only with no blank before
				// the parenthesis (IGNORE_SPACE off).
				it.agg = a.agg
				p.next()
				p.next()
				if p.accept(kwDistinct) {
					it.distinct = true
				}
				if a.agg == aggCount && !it.distinct && p.acceptOp('*') {
					it.star = true
				} else {
					it.col = p.colRef()
				}
				if !p.acceptOp(')') {
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
	it.name = span{start, p.prevEnd}
	if !it.star && it.agg == aggNone {
		it.name = it.col.name // mysqld names a column by itself, qualifier dropped
	}
	if p.accept(kwAs) {
		it.name = p.alias()
	} else if p.tok.kind == tokIdent && !p.isReserved() || p.tok.kind == tokString {
		it.name = p.alias()
	}
	p.st.items = append(p.st.items, it)
}

func (p *tableParser) isReserved() bool {
	return p.tok.kind == tokIdent && !p.tok.quoted && reservedWords[p.tok.kw]
}

func (p *tableParser) alias() span {
	t := p.tok
	switch {
	case t.kind == tokString && !t.quoted:
		p.next()
		return span{t.start + 1, t.end - 1}
	case t.kind == tokIdent && !p.isReserved():
		p.next()
		return p.name(t)
	}
	p.fail()
	return span{}
}

// ident reads a name that is not a reserved word.
func (p *tableParser) ident() span {
	if p.tok.kind != tokIdent || p.isReserved() {
		p.fail()
		return span{}
	}
	t := p.tok
	p.next()
	return p.name(t)
}

func (p *tableParser) colRef() colRef {
	var c colRef
	c.name = p.ident()
	if p.ok() && p.acceptOp('.') {
		c.qual = c.name
		if p.isOp('*') {
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
	if p.ok() && p.acceptOp('.') {
		st.schema = st.table
		st.table = p.ident()
	}
	if p.accept(kwAs) {
		st.as = p.ident()
	} else if p.tok.kind == tokIdent && !p.isReserved() {
		st.as = p.ident()
	}
}

func (p *tableParser) whereOrderLimit(order bool) {
	st := p.st
	if p.accept(kwWhere) {
		or := false
		for p.ok() {
			p.condition()
			if or && p.ok() {
				st.where[len(st.where)-1].or = true
			}
			if or = p.accept(kwOr); !or && !p.accept(kwAnd) {
				break
			}
		}
	}
	if p.ok() && p.accept(kwOrder) {
		if !p.accept(kwBy) {
			p.fail()
		}
		for p.ok() {
			k := orderKey{col: p.colRef()}
			if p.accept(kwDesc) {
				k.desc = true
			} else {
				p.accept(kwAsc)
			}
			st.order = append(st.order, k)
			if !p.acceptOp(',') {
				break
			}
		}
	}
	if p.ok() && p.accept(kwLimit) {
		st.hasLimit = true
		st.limit = p.count()
		if order && p.acceptOp(',') {
			st.offset, st.limit = st.limit, p.count()
		} else if order && p.accept(kwOffset) {
			st.offset = p.count()
		}
	}
}

// count reads a LIMIT or OFFSET: an integer or a placeholder.
func (p *tableParser) count() operand {
	t := p.tok
	v := p.value()
	if p.ok() && (v.kind != valueInt && v.kind != valueParam || v.kind == valueInt && v.i < 0) {
		p.err = syntaxError(p.src[t.start:])
	}
	return v
}

func (p *tableParser) condition() {
	st := p.st
	c := pred{col: p.colRef()}
	if !p.ok() {
		return
	}
	c.not = p.accept(kwNot)
	switch {
	case p.accept(kwBetween):
		c.op = predBetween
		c.a = p.value()
		if !p.accept(kwAnd) {
			p.fail()
		}
		c.b = p.value()
	case p.accept(kwIn):
		c.op = predIn
		if !p.acceptOp('(') {
			p.fail()
		}
		c.in = len(st.inList)
		for p.ok() {
			st.inList = append(st.inList, p.value())
			if !p.acceptOp(',') {
				break
			}
		}
		c.to = len(st.inList)
		if !p.acceptOp(')') {
			p.fail()
		}
	case c.not:
		p.fail()
	case p.tok.kind == tokOp:
		switch p.tok.op {
		case '=':
			c.op = predEq
		case opNE:
			c.op = predNE
		case '<':
			c.op = predLT
		case opLE:
			c.op = predLE
		case '>':
			c.op = predGT
		case opGE:
			c.op = predGE
		default:
			p.fail()
		}
		p.next()
		c.a = p.value()
	default:
		p.fail()
	}
	st.where = append(st.where, c)
}

// value reads a literal or a placeholder.
func (p *tableParser) value() operand {
	if !p.ok() {
		return operand{}
	}
	t := p.tok
	neg := false
	if p.isOp('-') || p.isOp('+') {
		neg = p.isOp('-')
		p.next()
		t = p.tok
		if t.kind != tokInt {
			p.fail()
			return operand{}
		}
	}
	var v operand
	switch {
	case t.kind == tokInt:
		v = operand{kind: valueInt, i: t.n}
		if neg {
			v.i = -v.i
		}
	case t.kind == tokString:
		v = operand{kind: valueString, s: span{t.start + 1, t.end - 1}, escaped: t.quoted}
	case t.kind == tokParam:
		if p.st.params == 0 {
			p.st.firstParam = t.start
		}
		v = operand{kind: valueParam, i: int64(p.st.params)}
		p.st.params++
	case p.is(kwNull):
		v = operand{kind: valueNull}
	case p.is(kwDefault):
		v = operand{kind: valueDefault}
	default:
		p.fail()
		return operand{}
	}
	p.next()
	return v
}

func (p *tableParser) updateStmt() {
	st := p.st
	p.accept(kwLowPriority)
	p.accept(kwIgnore)
	p.tableRef()
	if p.ok() && !p.accept(kwSet) {
		p.fail()
	}
	for p.ok() {
		s := setItem{col: p.colRef()}
		if !p.acceptOp('=') {
			p.fail()
			return
		}
		if p.tok.kind == tokIdent && !p.is(kwNull) && !p.is(kwDefault) {
			s.hasSrc = true
			s.src = p.colRef()
			switch {
			case p.acceptOp('+'):
				s.v = p.value()
			case p.acceptOp('-'):
				s.neg = true
				s.v = p.value()
			default:
				s.v = operand{kind: valueInt}
			}
			if s.v.kind != valueInt && s.v.kind != valueParam {
				p.fail()
			}
		} else {
			s.v = p.value()
		}
		st.sets = append(st.sets, s)
		if !p.acceptOp(',') {
			break
		}
	}
	p.whereOrderLimit(false)
}

func (p *tableParser) insertStmt() {
	st := p.st
	p.accept(kwLowPriority)
	p.accept(kwIgnore)
	p.accept(kwInto)
	p.tableRef()
	if p.ok() && p.acceptOp('(') {
		for p.ok() {
			st.insCols = append(st.insCols, p.colRef())
			if !p.acceptOp(',') {
				break
			}
		}
		if !p.acceptOp(')') {
			p.fail()
		}
	}
	if p.ok() && !p.accept(kwValues) && !p.accept(kwValue) {
		p.fail()
	}
	width := -1
	for p.ok() {
		if !p.acceptOp('(') {
			p.fail()
			return
		}
		n := 0
		for p.ok() && !p.isOp(')') {
			st.insVals = append(st.insVals, p.value())
			n++
			if !p.acceptOp(',') {
				break
			}
		}
		if !p.acceptOp(')') {
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
		if !p.acceptOp(',') {
			break
		}
	}
}

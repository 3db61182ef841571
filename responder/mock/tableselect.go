package mock

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	"github.com/hoplat/hoplat/mysql/sbtable"
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// maxSortRows bounds the rows an ORDER BY or DISTINCT sorts (16 MiB of
// (key, id) pairs); past it the mock answers as mysqld out of sort buffer
// does.
const maxSortRows = 1 << 20

// flushAt is how much of a large result set is buffered before it is
// written, so that a million-row answer streams instead of growing memory.
const flushAt = 256 << 10

// scan walks the ids a WHERE selects: a range of the primary key narrowed
// by the conditions on id, or the sorted members of an IN list on id; the
// other conditions are checked per row.
type scan struct {
	lo, hi  int64
	list    []int64
	useList bool
	i       int
	empty   bool
}

func (sc *scan) next() (int64, bool) {
	if sc.empty {
		return 0, false
	}
	if sc.useList {
		for sc.i < len(sc.list) {
			id := sc.list[sc.i]
			sc.i++
			if sc.lo <= id && id <= sc.hi {
				return id, true
			}
		}
		return 0, false
	}
	if sc.lo > sc.hi {
		return 0, false
	}
	id := sc.lo
	sc.lo++
	return id, true
}

// plan narrows the scan by st's conditions on id.
func (c *serverConn) plan(st *tableStmt) scan {
	sc := scan{lo: 1, hi: st.tbl.Size}
	for i := range st.where {
		if st.where[i].or {
			// A disjunction: every row is a candidate.
			return scan{lo: 1, hi: st.tbl.Size}
		}
	}
	for i := range st.where {
		w := &st.where[i]
		if w.col.col != sbtable.ID || w.not && w.op != predIn {
			continue
		}
		a, anull := c.intValue(st, w.a)
		b, bnull := c.intValue(st, w.b)
		switch w.op {
		case predEq:
			sc.lo, sc.hi, sc.empty = max(sc.lo, a), min(sc.hi, a), sc.empty || anull
		case predLT:
			sc.hi, sc.empty = min(sc.hi, a-1), sc.empty || anull
		case predLE:
			sc.hi, sc.empty = min(sc.hi, a), sc.empty || anull
		case predGT:
			sc.lo, sc.empty = max(sc.lo, a+1), sc.empty || anull
		case predGE:
			sc.lo, sc.empty = max(sc.lo, a), sc.empty || anull
		case predBetween:
			sc.lo, sc.hi, sc.empty = max(sc.lo, a), min(sc.hi, b), sc.empty || anull || bnull
		case predIn:
			if w.not || sc.useList {
				continue // checked per row
			}
			list := c.ids[:0]
			for _, v := range st.inList[w.in:w.to] {
				if n, null := c.intValue(st, v); !null {
					list = append(list, n)
				}
			}
			slices.Sort(list)
			list = slices.Compact(list)
			c.ids = list
			sc.list, sc.useList = list, true
		}
	}
	return sc
}

// truth is SQL's three-valued logic: a comparison with NULL is unknown,
// and a row passes a WHERE only when every condition is true. The values
// are ordered false < unknown < true, so that AND is the lesser of two
// truths and OR the greater (Kleene's logic), and NOT is isTrue less it.
type truth uint8

const (
	isFalse truth = iota
	isUnknown
	isTrue
)

// and combines two truths as SQL's AND does.
func and(a, b truth) truth { return min(a, b) }

// or combines two truths as SQL's OR does.
func or(a, b truth) truth { return max(a, b) }

func truthOf(ok bool) truth {
	if ok {
		return isTrue
	}
	return isFalse
}

// matches evaluates the WHERE on row id: ORs of ANDs, a row passing when
// the whole is true.
func (c *serverConn) matches(st *tableStmt, id int64) bool {
	any, all := isFalse, isTrue
	for i := range st.where {
		w := &st.where[i]
		if w.or {
			if any = or(any, all); any == isTrue {
				return true
			}
			all = isTrue
		}
		if all != isFalse {
			all = and(all, c.condition(st, w, id))
		}
	}
	return or(any, all) == isTrue
}

func (c *serverConn) condition(st *tableStmt, w *pred, id int64) truth {
	cmpWith := func(v sqlread.Value, op predOp) truth {
		if c.isNull(st, v) {
			return isUnknown
		}
		return truthOf(holds(byte(op), c.compareValue(st, id, w.col.col, v)))
	}
	var r truth
	switch w.op {
	case predBetween:
		r = and(cmpWith(w.a, predGE), cmpWith(w.b, predLE))
	case predIn:
		r = isFalse
		for _, v := range st.inList[w.in:w.to] {
			if r = or(r, cmpWith(v, predEq)); r == isTrue {
				break
			}
		}
	default:
		r = cmpWith(w.a, w.op)
	}
	if w.not && r != isUnknown {
		r = isTrue - r // NOT true is false and back
	}
	return r
}

func (c *serverConn) isNull(st *tableStmt, v sqlread.Value) bool {
	_, null := c.intValue(st, v)
	return null && v.Kind != sqlread.String
}

// compareValue compares column col of row id with v: numerically for id
// and k, and for a string column against a number (MySQL converts the
// string); as text otherwise, ignoring trailing blanks as a PAD SPACE
// collation does.
func (c *serverConn) compareValue(st *tableStmt, id int64, col sbtable.Column, v sqlread.Value) int {
	t := &st.tbl
	numeric := !isStringColumn(col) || v.Kind == sqlread.Int || v.Kind == sqlread.Param && int(v.I) < len(c.params) && c.params[v.I].isInt
	if numeric {
		n, _ := c.intValue(st, v)
		var x int64
		if isStringColumn(col) {
			x = int64(t.Prefix(id, col))
		} else {
			x = t.Int(id, col)
		}
		return cmp.Compare(x, n)
	}
	var buf [sbtable.CLen]byte
	s, _ := c.stringValue(st, v, c.scratch[:0])
	return bytes.Compare(t.AppendText(buf[:0], id, col), bytes.TrimRight(s, " "))
}

// runSelect answers a SELECT on a table with rows as mysqld would return
// them.
func (c *serverConn) runSelect(st *tableStmt, binaryRows bool) error {
	if c.s.canned && c.isPointSelectC(st) {
		i := 0
		if c.deprecateEOF {
			i = 1
		}
		r := &c.s.textRows[i]
		if binaryRows {
			r = &c.s.binRows[i]
		}
		return c.pc.WriteRaw(r.frames, r.packets)
	}
	cols := c.resultColumns(st)
	offset, limit, err := c.limits(st)
	if err != nil {
		return c.sendServerError(err)
	}
	aggregate := false
	for i := range st.items {
		aggregate = aggregate || st.items[i].agg != aggNone
	}
	sc := c.plan(st)
	switch {
	case aggregate:
		c.writeHeader(st, cols)
		c.aggregateRow(st, cols, &sc, offset, limit, binaryRows)
	case len(st.order) > 0 || st.distinct:
		rows, serr := c.sorted(st, cols, &sc)
		if serr != nil {
			return c.sendServerError(serr)
		}
		c.writeHeader(st, cols)
		for i := offset; i < int64(len(rows)) && i-offset < limit; i++ {
			c.writeRow(st, cols, rows[i].id, binaryRows)
			if len(c.pc.Wbuf) > flushAt {
				if err := c.pc.Flush(); err != nil {
					return err
				}
			}
		}
	default:
		c.writeHeader(st, cols)
		var n int64
		for id, ok := sc.next(); ok && n < offset+limit; id, ok = sc.next() {
			if !c.matches(st, id) {
				continue
			}
			if n++; n > offset {
				c.writeRow(st, cols, id, binaryRows)
				if len(c.pc.Wbuf) > flushAt {
					if err := c.pc.Flush(); err != nil {
						return err
					}
				}
			}
		}
	}
	endResultSet(c.pc, c.deprecateEOF)
	return c.pc.Flush()
}

// isPointSelectC reports SELECT c FROM sbtestN WHERE id=v, the statement
// ServerConfig.Rows and RowBytes reshape.
func (c *serverConn) isPointSelectC(st *tableStmt) bool {
	return len(st.items) == 1 && st.items[0].agg == aggNone && !st.items[0].star && st.items[0].col.col == sbtable.C &&
		len(st.where) == 1 && st.where[0].op == predEq && !st.where[0].not && st.where[0].col.col == sbtable.ID &&
		len(st.order) == 0 && !st.hasLimit && !st.distinct
}

func (c *serverConn) limits(st *tableStmt) (offset, limit int64, err *wire.ServerError) {
	limit = math.MaxInt64 / 2
	if !st.hasLimit {
		return 0, limit, nil
	}
	l, lnull := c.intValue(st, st.limit)
	o, onull := c.intValue(st, st.offset)
	if st.offset.Kind == sqlread.Null {
		o, onull = 0, false
	}
	if lnull || onull || l < 0 || o < 0 {
		return 0, 0, &wire.ServerError{Code: wire.ErWrongArguments, State: "HY000", Message: "Incorrect arguments to LIMIT"}
	}
	return o, min(l, limit), nil
}

// writeHeader writes a result set's column count and definitions: the
// ones a prepared statement encoded once, or encoded now.
func (c *serverConn) writeHeader(st *tableStmt, cols []outCol) {
	if h := &st.header; h.packets > 0 {
		c.pc.Wbuf = append(c.pc.Wbuf, h.frames...)
		c.pc.Seq += uint8(h.packets)
		return
	}
	c.encodeHeader(c.pc, st, cols)
}

func (c *serverConn) encodeHeader(pc *wire.PacketConn, st *tableStmt, cols []outCol) {
	pc.End(wire.AppendLenEncInt(pc.Begin(), uint64(len(cols))))
	for i := range cols {
		pc.End(c.appendOutColumn(pc.Begin(), st, &cols[i]))
	}
	if !c.deprecateEOF {
		pc.End(wire.AppendEOF(pc.Begin(), wire.ServerStatusAutocommit))
	}
}

// writeRow writes row id's values of cols.
func (c *serverConn) writeRow(st *tableStmt, cols []outCol, id int64, binaryRows bool) {
	t := &st.tbl
	b := c.pc.Begin()
	if binaryRows {
		b, _ = appendBinaryRowHead(b, len(cols)) // a row on a table holds no NULL
	}
	for i := range cols {
		switch col := cols[i].col; {
		case isStringColumn(col):
			n := sbtable.CLen
			if col == sbtable.Pad {
				n = sbtable.PadLen
			}
			b = t.AppendText(append(b, byte(n)), id, col)
		case binaryRows:
			b = binary.LittleEndian.AppendUint32(b, uint32(t.Int(id, col)))
		default:
			b = appendLenEncInt64Text(b, t.Int(id, col))
		}
	}
	c.pc.End(b)
}

// appendLenEncInt64Text appends n in decimal as a length-encoded string.
func appendLenEncInt64Text(b []byte, n int64) []byte {
	at := len(b)
	b = strconv.AppendInt(append(b, 0), n, 10)
	b[at] = byte(len(b) - at - 1)
	return b
}

// aggAcc accumulates one aggregate column.
type aggAcc struct {
	n        int64
	sum      float64
	isum     int64
	min, max int64 // ids of the extreme rows
	seen     map[string]bool
}

// aggregateRow computes the one row of a SELECT with aggregates, where a
// plain column takes the first matching row's value (as MariaDB and MySQL
// without ONLY_FULL_GROUP_BY answer), and writes it unless offset or
// limit leaves it out.
func (c *serverConn) aggregateRow(st *tableStmt, cols []outCol, sc *scan, offset, limit int64, binaryRows bool) {
	first := c.accumulate(st, cols, sc)
	if offset > 0 || limit == 0 {
		return
	}
	c.writeAggregateRow(st, cols, first, binaryRows)
}

// accumulate folds every row the scan matches into c.accs, one aggAcc
// per column, and returns the first such row's id (0 for none).
func (c *serverConn) accumulate(st *tableStmt, cols []outCol, sc *scan) int64 {
	accs := c.accs[:0]
	for range cols {
		accs = append(accs, aggAcc{})
	}
	c.accs = accs
	first := int64(0)
	var key [sbtable.CLen]byte
	for id, ok := sc.next(); ok; id, ok = sc.next() {
		if !c.matches(st, id) {
			continue
		}
		if first == 0 {
			first = id
		}
		for i := range cols {
			c.fold(st, &cols[i], &accs[i], id, key[:0])
		}
	}
	return first
}

// fold adds row id to column o's accumulator: a count for a plain column
// or COUNT(*), else (a DISTINCT value once) the extreme rows and the sum;
// key is scratch space for a DISTINCT value.
func (c *serverConn) fold(st *tableStmt, o *outCol, a *aggAcc, id int64, key []byte) {
	if o.item.agg == aggNone || o.item.star {
		a.n++
		return
	}
	t := &st.tbl
	if o.item.distinct {
		if a.seen == nil {
			a.seen = map[string]bool{}
		}
		k := string(t.AppendText(key, id, o.col))
		if a.seen[k] {
			return
		}
		a.seen[k] = true
	}
	if a.n == 0 || c.compareRows(st, id, a.min, o.col) < 0 {
		a.min = id
	}
	if a.n == 0 || c.compareRows(st, id, a.max, o.col) > 0 {
		a.max = id
	}
	a.n++
	if isStringColumn(o.col) {
		a.sum += float64(t.Prefix(id, o.col))
	} else {
		a.isum += t.Int(id, o.col)
	}
}

// writeAggregateRow writes the one row from c.accs: COUNT's count, SUM's
// and AVG's figure, MIN's, MAX's and a plain column's row value, NULL
// where no row matched.
func (c *serverConn) writeAggregateRow(st *tableStmt, cols []outCol, first int64, binaryRows bool) {
	b, bitmap := c.pc.Begin(), 0
	if binaryRows {
		b, bitmap = appendBinaryRowHead(b, len(cols))
	}
	num := c.scratch[:0]
	for i := range cols {
		o, a := &cols[i], &c.accs[i]
		switch o.item.agg {
		case aggCount:
			if binaryRows {
				b = binary.LittleEndian.AppendUint64(b, uint64(a.n))
			} else {
				b = appendLenEncInt64Text(b, a.n)
			}
			continue
		case aggSum, aggAvg:
			if a.n > 0 {
				b, num = appendSumAvg(b, num[:0], o, a, binaryRows)
				continue
			}
		}
		id := a.row(o.item.agg, first)
		if id == 0 {
			// No rows: NULL.
			if binaryRows {
				setBinaryNull(b, bitmap, i)
			} else {
				b = append(b, wire.LenencNull)
			}
			continue
		}
		b, num = appendRowValue(b, num, &st.tbl, o.col, id, binaryRows)
	}
	c.scratch = num[:0]
	c.pc.End(b)
}

// row is the row whose value an aggregate of kind agg answers with: MIN's
// and MAX's extreme, a plain column's first; 0 for SUM and AVG, which
// answer with no row's value, and where no row matched.
func (a *aggAcc) row(agg aggKind, first int64) int64 {
	switch agg {
	case aggMin:
		return a.min
	case aggMax:
		return a.max
	case aggSum, aggAvg:
		return 0
	}
	return first
}

// appendSumAvg appends SUM's or AVG's figure over a's rows, as MariaDB
// types it: a DOUBLE for a string column's, a DECIMAL for an INT's (AVG
// with div_precision_increment's 4 decimals, rounded half away from
// zero); num is scratch space.
func appendSumAvg(b, num []byte, o *outCol, a *aggAcc, binaryRows bool) ([]byte, []byte) {
	switch {
	case o.typ == wire.TypeDouble:
		v := a.sum
		if o.item.agg == aggAvg {
			v /= float64(a.n)
		}
		if binaryRows {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(v)), num
		}
		num = strconv.AppendFloat(num, v, 'g', -1, 64)
	case o.item.agg == aggSum:
		num = strconv.AppendInt(num, a.isum, 10)
	default:
		q := (a.isum*10000*2/a.n + sign(a.isum)) / 2
		num = appendScaled(num, q, 4)
	}
	return wire.AppendLenEncBytes(b, num), num
}

// appendRowValue appends row id's value of col; num is scratch space.
func appendRowValue(b, num []byte, t *sbtable.Table, col sbtable.Column, id int64, binaryRows bool) ([]byte, []byte) {
	switch {
	case isStringColumn(col):
		num = t.AppendText(num[:0], id, col)
		return wire.AppendLenEncBytes(b, num), num
	case binaryRows:
		return binary.LittleEndian.AppendUint32(b, uint32(t.Int(id, col))), num
	}
	return appendLenEncInt64Text(b, t.Int(id, col)), num
}

func sign(n int64) int64 {
	if n < 0 {
		return -1
	}
	return 1
}

// appendScaled appends q / 10^scale with scale decimals.
func appendScaled(b []byte, q int64, scale int) []byte {
	if q < 0 {
		b = append(b, '-')
		q = -q
	}
	p := int64(1)
	for range scale {
		p *= 10
	}
	b = strconv.AppendInt(b, q/p, 10)
	b = append(b, '.')
	frac := strconv.AppendInt(nil, q%p+p, 10)
	return append(b, frac[1:]...)
}

// compareRows orders rows a and b by column col as mysqld's collation
// does: numbers numerically, sysbench's strings (digits and '-', all the
// same width) byte by byte.
func (c *serverConn) compareRows(st *tableStmt, a, b int64, col sbtable.Column) int {
	t := &st.tbl
	if !isStringColumn(col) {
		return cmp.Compare(t.Int(a, col), t.Int(b, col))
	}
	if r := cmp.Compare(t.Prefix(a, col), t.Prefix(b, col)); r != 0 {
		return r
	}
	var x, y [sbtable.CLen]byte
	return bytes.Compare(t.AppendText(x[:0], a, col), t.AppendText(y[:0], b, col))
}

// sortRow is a row being sorted with its first sort key's value, so
// that most comparisons need not compute the column again.
type sortRow struct {
	key uint64
	id  int64
}

type sortKey struct {
	col  sbtable.Column
	desc bool
}

// keyOf is a column's value as an unsigned number ordered as the column:
// an integer shifted past the sign, a string's first digit group.
func keyOf(t *sbtable.Table, id int64, col sbtable.Column) uint64 {
	if isStringColumn(col) {
		return t.Prefix(id, col)
	}
	return uint64(t.Int(id, col)) ^ 1<<63
}

// sortBy orders rows by keys, then by id.
func (c *serverConn) sortBy(st *tableStmt, rows []sortRow, keys []sortKey) {
	t := &st.tbl
	for i := range rows {
		rows[i].key = keyOf(t, rows[i].id, keys[0].col)
	}
	slices.SortFunc(rows, func(a, b sortRow) int {
		r := cmp.Compare(a.key, b.key)
		if r == 0 && isStringColumn(keys[0].col) {
			r = c.compareRows(st, a.id, b.id, keys[0].col)
		}
		if keys[0].desc {
			r = -r
		}
		for _, k := range keys[1:] {
			if r != 0 {
				break
			}
			r = c.compareRows(st, a.id, b.id, k.col)
			if k.desc {
				r = -r
			}
		}
		if r == 0 {
			r = cmp.Compare(a.id, b.id)
		}
		return r
	})
}

// sorted collects the matching rows, removes those whose selected values
// repeat under DISTINCT, and orders them by ORDER BY (else by id).
func (c *serverConn) sorted(st *tableStmt, cols []outCol, sc *scan) ([]sortRow, *wire.ServerError) {
	rows := c.sortRows[:0]
	defer func() { c.sortRows = rows[:0] }()
	for id, ok := sc.next(); ok; id, ok = sc.next() {
		if !c.matches(st, id) {
			continue
		}
		if len(rows) == maxSortRows {
			return nil, &wire.ServerError{Code: ErOutOfSortMemory, State: "HY001", Message: "Out of sort memory, consider increasing server sort buffer size"}
		}
		rows = append(rows, sortRow{id: id})
	}
	if len(rows) == 0 {
		return rows, nil
	}
	keys := c.sortKeys[:0]
	defer func() { c.sortKeys = keys[:0] }()
	if st.distinct {
		for i := range cols {
			keys = append(keys, sortKey{col: cols[i].col})
		}
		c.sortBy(st, rows, keys)
		rows = slices.CompactFunc(rows, func(a, b sortRow) bool {
			for i := range cols {
				if c.compareRows(st, a.id, b.id, cols[i].col) != 0 {
					return false
				}
			}
			return true
		})
		if len(st.order) == 0 {
			// First occurrence order, as a temporary table keeps it.
			slices.SortFunc(rows, func(a, b sortRow) int { return cmp.Compare(a.id, b.id) })
		}
		keys = keys[:0]
	}
	if len(st.order) > 0 {
		for _, k := range st.order {
			keys = append(keys, sortKey{col: k.col.col, desc: k.desc})
		}
		c.sortBy(st, rows, keys)
	}
	return rows, nil
}

package mock

import (
	"fmt"
	"strconv"

	"github.com/hoplat/hoplat/mysql/sbtable"
	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// Errors mysqld gives for statements on tables, in MySQL 8.0's words.
const (
	ErBadNull         = 1048
	ErBadField        = 1054
	ErNoDBSelected    = 1046
	ErValueCount      = 1136
	ErOutOfSortMemory = 1038
)

func columnCountError(row int) *wire.ServerError {
	return &wire.ServerError{Code: ErValueCount, State: "21S01", Message: fmt.Sprintf("Column count doesn't match value count at row %d", row)}
}

// tableNumber returns n for "sbtestN" naming one of the server's tables:
// table names are case-sensitive, as mysqld's on Linux
// (lower_case_table_names=0).
func (s *Server) tableNumber(name []byte) (int, bool) {
	const prefix = "sbtest"
	if len(name) <= len(prefix) || string(name[:len(prefix)]) != prefix || name[len(prefix)] == '0' {
		return 0, false
	}
	n := 0
	for _, ch := range name[len(prefix):] {
		if !('0' <= ch && ch <= '9') || n > s.cfg.Tables {
			return 0, false
		}
		n = n*10 + int(ch-'0')
	}
	return n, 1 <= n && n <= s.cfg.Tables
}

// resolve binds st to a table of the server and its names to columns,
// with the errors mysqld gives in the order it checks: the schema, the
// table, then the columns clause by clause.
func (c *serverConn) resolve(st *tableStmt) *wire.ServerError {
	src := st.src
	if st.schema.Empty() && c.db == "" {
		return &wire.ServerError{Code: ErNoDBSelected, State: "3D000", Message: "No database selected"}
	}
	n, ok := c.s.tableNumber(st.table.Of(src))
	if !ok {
		schema := c.db
		if !st.schema.Empty() {
			schema = string(st.schema.Of(src))
		}
		return &wire.ServerError{Code: wire.ErNoSuchTable, State: "42S02", Message: fmt.Sprintf("Table '%s.%s' doesn't exist", schema, st.table.Of(src))}
	}
	st.tableIndex = n - 1
	st.tbl = c.s.tables[n-1]
	col := func(r *colRef, clause string) *wire.ServerError {
		if !r.qual.Empty() {
			q := st.as
			if q.Empty() {
				q = st.table
			}
			if string(r.qual.Of(src)) != string(q.Of(src)) {
				return &wire.ServerError{Code: ErBadField, State: "42S22", Message: fmt.Sprintf("Unknown column '%s.%s' in '%s'", r.qual.Of(src), r.name.Of(src), clause)}
			}
		}
		cl, ok := sbtable.Lookup(r.name.Of(src))
		if !ok {
			return &wire.ServerError{Code: ErBadField, State: "42S22", Message: fmt.Sprintf("Unknown column '%s' in '%s'", r.name.Of(src), clause)}
		}
		r.col = cl
		return nil
	}
	// The clause names of ER_BAD_FIELD_ERROR: MySQL's, or MariaDB's when
	// the greeting says MariaDB.
	fields, set, insert, where, order := "field list", "field list", "field list", "where clause", "order clause"
	if c.s.mariaDB {
		fields, set, insert, where, order = "SELECT", "SET", "INSERT INTO", "WHERE", "ORDER BY"
	}
	for i := range st.items {
		if it := &st.items[i]; !it.star {
			if err := col(&it.col, fields); err != nil {
				return err
			}
		}
	}
	for i := range st.sets {
		s := &st.sets[i]
		if err := col(&s.col, set); err != nil {
			return err
		}
		if s.hasSrc {
			if err := col(&s.src, set); err != nil {
				return err
			}
		}
	}
	for i := range st.insCols {
		if err := col(&st.insCols[i], insert); err != nil {
			return err
		}
	}
	for i := range st.where {
		if err := col(&st.where[i].col, where); err != nil {
			return err
		}
	}
	for i := range st.order {
		if err := col(&st.order[i].col, order); err != nil {
			return err
		}
	}
	if st.verb == verbInsert {
		width := len(st.insCols)
		if width == 0 {
			width = int(sbtable.NumColumns)
		}
		if st.insRows > 0 && len(st.insVals) != width*st.insRows {
			return columnCountError(1)
		}
	}
	return nil
}

// outCol is one column of a SELECT's result.
type outCol struct {
	item *selItem
	col  sbtable.Column
	typ  uint8
	// notNull: a table column or COUNT; aggregates of no rows are NULL.
	notNull bool
}

// resultColumns lists st's result columns into c.outCols.
func (c *serverConn) resultColumns(st *tableStmt) []outCol {
	cols := c.outCols[:0]
	for i := range st.items {
		it := &st.items[i]
		if it.star && it.agg == aggNone {
			for col := range sbtable.NumColumns {
				cols = append(cols, outCol{item: it, col: col, typ: columnType(col), notNull: true})
			}
			continue
		}
		o := outCol{item: it, col: it.col.col}
		switch it.agg {
		case aggNone:
			o.typ, o.notNull = columnType(o.col), true
		case aggCount:
			o.typ, o.notNull = wire.TypeLongLong, true
		case aggSum, aggAvg:
			o.typ = wire.TypeNewDecimal
			if isStringColumn(o.col) {
				o.typ = wire.TypeDouble
			}
		case aggMin, aggMax:
			o.typ = columnType(o.col)
		}
		cols = append(cols, o)
	}
	c.outCols = cols
	return cols
}

func columnType(col sbtable.Column) uint8 {
	if isStringColumn(col) {
		return wire.TypeString
	}
	return wire.TypeLong
}

func isStringColumn(col sbtable.Column) bool { return col == sbtable.C || col == sbtable.Pad }

// Column flags mysqld sets on sysbench's columns.
const (
	flagPriKey        = 0x0002
	flagMultipleKey   = 0x0008
	flagAutoIncrement = 0x0200
	flagPartKey       = 0x4000
	flagNum           = 0x8000
)

// appendOutColumn appends the column definition of o, as mysqld describes
// a column of sbtestN (schema, table and alias included) or an aggregate.
func (c *serverConn) appendOutColumn(b []byte, st *tableStmt, o *outCol) []byte {
	src := st.src
	name := o.item.name.Of(src)
	if o.item.star && o.item.agg == aggNone {
		name = nil
	}
	b = wire.AppendLenEncString(b, "def")
	if o.item.agg == aggNone {
		if st.schema.Empty() {
			b = wire.AppendLenEncString(b, c.db)
		} else {
			b = wire.AppendLenEncBytes(b, st.schema.Of(src))
		}
		if st.as.Empty() {
			b = wire.AppendLenEncBytes(b, st.table.Of(src))
		} else {
			b = wire.AppendLenEncBytes(b, st.as.Of(src))
		}
		b = wire.AppendLenEncString(b, c.s.tableNames[st.tableIndex])
		if name == nil {
			b = wire.AppendLenEncString(b, o.col.String())
		} else {
			b = wire.AppendLenEncBytes(b, name)
		}
		b = wire.AppendLenEncString(b, o.col.String())
	} else {
		b = append(b, 0, 0, 0)
		b = wire.AppendLenEncBytes(b, name)
		b = append(b, 0)
	}
	charset, length, flags, decimals := uint16(63), uint32(11), uint16(wire.FlagBinary|flagNum), uint8(0)
	switch o.typ {
	case wire.TypeString:
		charset, flags = wire.ClientCharsetUTF8MB4, 0
		length = sbtable.CWidth * 4
		if o.col == sbtable.Pad {
			length = sbtable.PadWidth * 4
		}
	case wire.TypeLongLong:
		length = 21
	case wire.TypeNewDecimal:
		length, decimals = 33, 0
		if o.item.agg == aggAvg {
			length, decimals = 15, 4
		}
	case wire.TypeDouble:
		length, decimals = 23, 31
	}
	if o.item.agg == aggNone {
		switch o.col {
		case sbtable.ID:
			flags |= flagPriKey | flagAutoIncrement | flagPartKey
		case sbtable.K:
			flags |= flagMultipleKey | flagPartKey
		}
	}
	if o.notNull {
		flags |= wire.FlagNotNull
	}
	if o.typ == wire.TypeString {
		flags &^= flagNum
	}
	b = append(b, 0x0C)
	b = append(b, byte(charset), byte(charset>>8))
	b = append(b, byte(length), byte(length>>8), byte(length>>16), byte(length>>24))
	b = append(b, o.typ, byte(flags), byte(flags>>8), decimals, 0, 0)
	return b
}

// param is one value bound to a placeholder by COM_STMT_EXECUTE; b
// aliases the packet.
type param struct {
	null  bool
	isInt bool
	i     int64
	b     []byte
}

// intValue is v as an integer, as MySQL converts a string to a number
// (its leading digits); null reports SQL NULL.
func (c *serverConn) intValue(st *tableStmt, v sqlread.Value) (n int64, null bool) {
	switch v.Kind {
	case sqlread.Int:
		return v.I, false
	case sqlread.String:
		return leadingInt(v.Lit.Of(st.src)), false
	case sqlread.Param:
		if int(v.I) >= len(c.params) {
			return 0, true
		}
		p := &c.params[v.I]
		if p.null {
			return 0, true
		}
		if p.isInt {
			return p.i, false
		}
		return leadingInt(p.b), false
	case sqlread.Default:
		return 0, false
	}
	return 0, true
}

// stringValue is v as text, unescaped into scratch when it must be.
func (c *serverConn) stringValue(st *tableStmt, v sqlread.Value, scratch []byte) (s []byte, null bool) {
	switch v.Kind {
	case sqlread.Int:
		return strconv.AppendInt(scratch[:0], v.I, 10), false
	case sqlread.String:
		raw := v.Lit.Of(st.src)
		if !v.Escaped {
			return raw, false
		}
		return sqlread.Unescape(scratch[:0], raw, st.src[v.Lit.Start-1]), false
	case sqlread.Param:
		if int(v.I) >= len(c.params) || c.params[v.I].null {
			return nil, true
		}
		p := &c.params[v.I]
		if p.isInt {
			return strconv.AppendInt(scratch[:0], p.i, 10), false
		}
		return p.b, false
	case sqlread.Default:
		return scratch[:0], false
	}
	return nil, true
}

// leadingInt is the integer MySQL reads from the start of a string: an
// optional sign and digits, after blanks; 0 when there are none.
func leadingInt(s []byte) int64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var n int64
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9' && n < 1<<58; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

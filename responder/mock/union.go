package mock

import (
	"time"

	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// UNIONs of SELECTs without a table ("SELECT 1 UNION SELECT 2"), as
// monitors and tests send them: each part is evaluated as a table-less
// SELECT and the rows are joined under the first part's column names.

// ErWrongNumberOfColumnsInSelect is mysqld's error for parts of a UNION
// of different widths.
const ErWrongNumberOfColumnsInSelect = 1222

func (c *serverConn) unionQuery(sql []byte) error {
	return c.unionQueryIn(sql, &evalContext{c: c, now: time.Now()})
}

func (c *serverConn) unionQueryIn(sql []byte, ctx *evalContext) error {
	p := &parser{ctx: ctx}
	p.Init(sql)
	var parts []*exprResult
	var rows [][]sqlread.Value
	distinct := false
	for {
		r := p.selectPart()
		if p.err != nil {
			return c.sendServerError(p.err)
		}
		if len(parts) > 0 && len(r.cols) != len(parts[0].cols) {
			return c.sendErr(ErWrongNumberOfColumnsInSelect, "21000", "The used SELECT statements have a different number of columns")
		}
		parts = append(parts, r)
		if !r.noRows {
			rows = append(rows, r.row)
		}
		if distinct {
			rows = dedupeRows(rows)
		}
		if !p.Accept(sqlread.KwUnion) {
			break
		}
		distinct = !p.Accept(sqlread.KwAll)
		p.Accept(sqlread.KwDistinct)
	}
	if p.end(); p.err != nil {
		return c.sendServerError(p.err)
	}
	cols := make([]wire.ColumnDef, len(parts[0].cols))
	for i := range cols {
		cols[i] = unionColumn(parts, i)
		for _, row := range rows {
			row[i] = unionValue(row[i], &cols[i])
		}
	}
	return c.writeRows(cols, rows)
}

// unionColumn is the column a UNION's parts give at index i, as MariaDB
// aggregates their types (Type_handler_hybrid_field_type, then
// Item_type_holder): NULL parts count only for nullability; integers stay
// integers, one wide part making the column BIGINT, with the widest
// part's digits plus room for a sign; a DECIMAL part (or signed integers
// beside unsigned ones) makes a DECIMAL of the widest integer part and
// the largest scale; any string part makes a string as wide as the
// widest part's text. A numeric UNION column carries no BINARY flag.
func unionColumn(parts []*exprResult, i int) wire.ColumnDef {
	col := wire.ColumnDef{Name: parts[0].cols[i].Name, Charset: 63}
	notNull, any := true, false
	ints, longs, str := true, false, false
	signed, unsigned := false, false
	intDigits, scale, chars := 0, 0, 0
	for _, p := range parts {
		pc, v := &p.cols[i], p.row[i]
		notNull = notNull && pc.Flags&wire.FlagNotNull != 0
		if pc.ColType == wire.TypeNull {
			continue
		}
		any = true
		if pc.Charset == 63 {
			chars = max(chars, int(pc.Length)) // a number's text
		}
		switch pc.ColType {
		case wire.TypeLong, wire.TypeLongLong:
			digits := int(pc.Length)
			if v.Kind == sqlread.Int && v.I < 0 {
				digits-- // the sign
			}
			intDigits = max(intDigits, digits)
			longs = longs || pc.ColType == wire.TypeLongLong
			if pc.Flags&wire.FlagUnsigned != 0 {
				unsigned = true
			} else {
				signed = true
			}
		case wire.TypeNewDecimal:
			ints = false
			d := int(pc.Decimals)
			point := 0
			if d > 0 {
				point = 1
			}
			intDigits = max(intDigits, int(pc.Length)-d-point-1)
			scale = max(scale, d)
			signed = true
		case wire.TypeVarString, wire.TypeString:
			str, ints = true, false
			chars = max(chars, int(pc.Length)/4)
		default:
			str, ints = true, false
		}
	}
	switch {
	case !any:
		col.ColType, col.Flags = wire.TypeString, wire.FlagBinary
		return col
	case str:
		col.ColType, col.Charset, col.Length = wire.TypeVarString, wire.ClientCharsetUTF8MB4, uint32(chars*4)
	case ints && !(signed && unsigned):
		col.ColType, col.Length = wire.TypeLong, uint32(intDigits)
		if longs {
			col.ColType = wire.TypeLongLong
		}
		if unsigned {
			col.Flags |= wire.FlagUnsigned
		} else {
			col.Length++ // room for a sign
		}
	default:
		col.ColType, col.Decimals = wire.TypeNewDecimal, uint8(scale)
		col.Length = uint32(intDigits + scale + 1)
		if scale > 0 {
			col.Length++ // the point
		}
	}
	if notNull {
		col.Flags |= wire.FlagNotNull
	}
	return col
}

// unionValue is v as a value of the UNION column col: text in a string
// column, a DECIMAL with col's scale in a decimal one.
func unionValue(v sqlread.Value, col *wire.ColumnDef) sqlread.Value {
	if v.Kind == sqlread.Null {
		return v
	}
	switch col.ColType {
	case wire.TypeVarString:
		if v.Kind != sqlread.String {
			return strVal(v.Text())
		}
	case wire.TypeNewDecimal:
		s, scale := v.Text(), 0
		if v.Kind == sqlread.Decimal {
			scale = int(v.Scale)
		}
		if scale == 0 && col.Decimals > 0 {
			s += "."
		}
		for ; scale < int(col.Decimals); scale++ {
			s += "0"
		}
		return sqlread.Value{Kind: sqlread.Decimal, S: s, Scale: int32(scale)}
	}
	return v
}

// dedupeRows keeps the first of rows with equal values.
func dedupeRows(rows [][]sqlread.Value) [][]sqlread.Value {
	out := rows[:0]
	seen := map[string]bool{}
	for _, row := range rows {
		var key []byte
		for _, v := range row {
			key = append(key, byte(v.Kind))
			key = append(key, v.Text()...)
			key = append(key, 0)
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, row)
		}
	}
	return out
}

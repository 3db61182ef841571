package mysql

import (
	"time"
)

// UNIONs of SELECTs without a table ("SELECT 1 UNION SELECT 2"), as
// monitors and tests send them: each part is evaluated as a table-less
// SELECT and the rows are joined under the first part's column names.

func hasUnion(sql []byte) bool { return findTopKeyword(sql, "UNION") >= 0 }

// ErWrongNumberOfColumnsInSelect is mysqld's error for parts of a UNION
// of different widths.
const ErWrongNumberOfColumnsInSelect = 1222

func (c *serverConn) unionQuery(sql []byte) error {
	return c.unionQueryIn(sql, &evalContext{c: c, now: time.Now()})
}

func (c *serverConn) unionQueryIn(sql []byte, ctx *evalContext) error {
	var parts []*exprResult
	var rows [][]value
	rest := sql
	distinct := false
	for part := 0; ; part++ {
		end := findTopKeyword(rest, "UNION")
		text := rest
		if end >= 0 {
			text = rest[:end]
		}
		r, serr := evalSelect(text, ctx)
		if serr != nil {
			return c.sendServerError(serr)
		}
		if part > 0 && len(r.cols) != len(parts[0].cols) {
			return c.sendErr(ErWrongNumberOfColumnsInSelect, "21000", "The used SELECT statements have a different number of columns")
		}
		parts = append(parts, r)
		if !r.noRows {
			rows = append(rows, r.row)
		}
		if distinct {
			rows = dedupeRows(rows)
		}
		if end < 0 {
			break
		}
		rest = rest[end+len("UNION"):]
		p := &exprParser{src: rest}
		p.space()
		distinct = !p.keyword("ALL")
		p.keyword("DISTINCT")
		rest = rest[p.pos:]
	}
	cols := make([]columnDef, len(parts[0].cols))
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
func unionColumn(parts []*exprResult, i int) columnDef {
	col := columnDef{name: parts[0].cols[i].name, charset: 63}
	notNull, any := true, false
	ints, longs, str := true, false, false
	signed, unsigned := false, false
	intDigits, scale, chars := 0, 0, 0
	for _, p := range parts {
		pc, v := &p.cols[i], p.row[i]
		notNull = notNull && pc.flags&flagNotNull != 0
		if pc.colType == typeNull {
			continue
		}
		any = true
		if pc.charset == 63 {
			chars = max(chars, int(pc.length)) // a number's text
		}
		switch pc.colType {
		case typeLong, typeLongLong:
			digits := int(pc.length)
			if v.kind == valInt && v.i < 0 {
				digits-- // the sign
			}
			intDigits = max(intDigits, digits)
			longs = longs || pc.colType == typeLongLong
			if pc.flags&flagUnsigned != 0 {
				unsigned = true
			} else {
				signed = true
			}
		case typeNewDecimal:
			ints = false
			d := int(pc.decimals)
			point := 0
			if d > 0 {
				point = 1
			}
			intDigits = max(intDigits, int(pc.length)-d-point-1)
			scale = max(scale, d)
			signed = true
		case typeVarString, typeString:
			str, ints = true, false
			chars = max(chars, int(pc.length)/4)
		default:
			str, ints = true, false
		}
	}
	switch {
	case !any:
		col.colType, col.flags = typeString, flagBinary
		return col
	case str:
		col.colType, col.charset, col.length = typeVarString, clientCharsetUTF8MB4, uint32(chars*4)
	case ints && !(signed && unsigned):
		col.colType, col.length = typeLong, uint32(intDigits)
		if longs {
			col.colType = typeLongLong
		}
		if unsigned {
			col.flags |= flagUnsigned
		} else {
			col.length++ // room for a sign
		}
	default:
		col.colType, col.decimals = typeNewDecimal, uint8(scale)
		col.length = uint32(intDigits + scale + 1)
		if scale > 0 {
			col.length++ // the point
		}
	}
	if notNull {
		col.flags |= flagNotNull
	}
	return col
}

// unionValue is v as a value of the UNION column col: text in a string
// column, a DECIMAL with col's scale in a decimal one.
func unionValue(v value, col *columnDef) value {
	if v.kind == valNull {
		return v
	}
	switch col.colType {
	case typeVarString:
		if v.kind != valString {
			return strVal(v.text())
		}
	case typeNewDecimal:
		s, scale := v.text(), 0
		if v.kind == valDecimal {
			scale = v.scale
		}
		if scale == 0 && col.decimals > 0 {
			s += "."
		}
		for ; scale < int(col.decimals); scale++ {
			s += "0"
		}
		return value{kind: valDecimal, s: s, scale: scale}
	}
	return v
}

// dedupeRows keeps the first of rows with equal values.
func dedupeRows(rows [][]value) [][]value {
	out := rows[:0]
	seen := map[string]bool{}
	for _, row := range rows {
		var key []byte
		for _, v := range row {
			key = append(key, byte(v.kind))
			key = append(key, v.text()...)
			key = append(key, 0)
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, row)
		}
	}
	return out
}

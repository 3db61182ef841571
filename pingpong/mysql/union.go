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
	var cols []columnDef
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
		if part == 0 {
			cols = r.cols
		} else if len(r.cols) != len(cols) {
			return c.sendErr(ErWrongNumberOfColumnsInSelect, "21000", "The used SELECT statements have a different number of columns")
		} else {
			for i := range cols {
				if isIntType(cols[i].colType) && isIntType(r.cols[i].colType) {
					cols[i].colType = max(cols[i].colType, r.cols[i].colType) // LONGLONG over LONG
				} else if cols[i].colType != r.cols[i].colType {
					// Mixed types: the column becomes a string, as mysqld
					// aggregates a number and a string.
					cols[i] = strVal("").column(string(cols[i].name), false)
				}
				cols[i].length = max(cols[i].length, r.cols[i].length)
			}
		}
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
	for i := range cols {
		if cols[i].colType == typeVarString {
			for _, row := range rows {
				if row[i].kind != valString && row[i].kind != valNull {
					row[i] = strVal(row[i].text())
				}
			}
		}
	}
	return c.writeRows(cols, rows)
}

func isIntType(t uint8) bool { return t == typeLong || t == typeLongLong }

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

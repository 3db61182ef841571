package mock

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hoplat/hoplat/pingpong/mysql/wire"
)

// The mock evaluates the SELECTs without a table that drivers, pools and
// proxies send — SELECT 1, SELECT @@version_comment LIMIT 1, SELECT
// DATABASE(), CONNECTION_ID(), NOW() — with the column types mysqld gives
// them, so that a driver scans SELECT 1 as an integer. Anything it cannot
// parse gets the parse error mysqld would send, never a made-up row.

// valueKind is a result value's SQL type, which fixes its column
// definition and its binary-protocol encoding.
type valueKind uint8

const (
	valNull valueKind = iota
	valInt
	valUint
	valDecimal
	valString
	valDateTime
)

type value struct {
	kind valueKind
	i    int64  // valInt, valUint (as bits)
	s    string // valString, valDecimal (text), valDateTime (text)
	t    time.Time
	// scale is the number of decimals of a valDecimal.
	scale int
	// narrow marks an integer MariaDB types INT rather than BIGINT: a
	// literal of at most nine characters, SLEEP().
	narrow bool
	// width is the value's display width in characters where mysqld
	// takes it from the text (a literal, its negation, SLEEP()'s 1); 0
	// means the type's full width.
	width int
	// notNull marks a value mysqld knows cannot be NULL (SLEEP() of a
	// non-NULL argument).
	notNull bool
}

// Decimals mysqld reports for a string column (NOT_FIXED_DEC): MariaDB's
// and MySQL's constants differ.
const (
	stringDecimalsMariaDB = 39
	stringDecimalsMySQL   = 31
)

func (v value) text() string {
	switch v.kind {
	case valInt:
		return strconv.FormatInt(v.i, 10)
	case valUint:
		return strconv.FormatUint(uint64(v.i), 10)
	}
	return v.s
}

// column returns the column definition mysqld gives a value of v's type
// under name: integers LONGLONG (MariaDB: INT up to nine characters) and
// temporal values DATETIME, both with the binary charset; strings
// VAR_STRING in the connection's utf8mb4, four bytes a character. A
// literal's length is its text's, as mysqld's Item_int and Item_decimal
// keep it.
func (v value) column(name string, notNull, mariaDB bool) wire.ColumnDef {
	c := wire.ColumnDef{Name: []byte(name), Charset: 63, Flags: wire.FlagBinary}
	switch v.kind {
	case valNull:
		c.ColType = wire.TypeNull
	case valInt, valUint:
		c.ColType, c.Length = wire.TypeLongLong, 21
		if v.width > 0 {
			c.Length = uint32(v.width)
		}
		if v.kind == valUint {
			c.Flags |= wire.FlagUnsigned
		} else if mariaDB && v.narrow {
			c.ColType = wire.TypeLong
		}
	case valDecimal:
		c.ColType, c.Length, c.Decimals = wire.TypeNewDecimal, uint32(len(v.s)+1), uint8(v.scale)
		if v.width > 0 {
			c.Length = uint32(v.width)
		}
	case valString:
		c.ColType, c.Charset, c.Flags = wire.TypeVarString, wire.ClientCharsetUTF8MB4, 0
		c.Length = uint32(utf8.RuneCountInString(v.s) * 4)
		c.Decimals = stringDecimalsMySQL
		if mariaDB {
			c.Decimals = stringDecimalsMariaDB
		}
	case valDateTime:
		c.ColType, c.Length = wire.TypeDateTime, 19
	}
	if (notNull || v.notNull) && v.kind != valNull {
		c.Flags |= wire.FlagNotNull
	}
	return c
}

// appendBinary encodes a non-NULL v as a binary-protocol row value of a
// column of type colType.
func (v value) appendBinary(b []byte, colType uint8) []byte {
	switch v.kind {
	case valInt, valUint:
		if colType == wire.TypeLong {
			return binary.LittleEndian.AppendUint32(b, uint32(v.i))
		}
		return binary.LittleEndian.AppendUint64(b, uint64(v.i))
	case valDateTime:
		t := v.t
		b = append(b, 7)
		b = binary.LittleEndian.AppendUint16(b, uint16(t.Year()))
		return append(b, byte(t.Month()), byte(t.Day()), byte(t.Hour()), byte(t.Minute()), byte(t.Second()))
	}
	return wire.AppendLenEncString(b, v.s)
}

// exprResult is an evaluated SELECT: its columns, its one row (or none
// under LIMIT 0), and, when nothing in it varies between executions, the
// responses pre-encoded.
type exprResult struct {
	cols     []wire.ColumnDef
	row      []value
	noRows   bool
	constant bool
	text     [2]canned // by DEPRECATE_EOF, as Server.textRows
	bin      [2]canned
}

func (r *exprResult) encode() {
	for i, deprecateEOF := range [2]bool{false, true} {
		r.text[i] = frame(func(pc *wire.PacketConn) { r.write(pc, deprecateEOF, false) })
		r.bin[i] = frame(func(pc *wire.PacketConn) { r.write(pc, deprecateEOF, true) })
	}
}

func (r *exprResult) write(pc *wire.PacketConn, deprecateEOF, binaryRows bool) {
	rows := [][]value{r.row}
	if r.noRows {
		rows = nil
	}
	writeResult(pc, r.cols, rows, deprecateEOF, binaryRows)
}

// writeResult frames a whole result set.
func writeResult(pc *wire.PacketConn, cols []wire.ColumnDef, rows [][]value, deprecateEOF, binaryRows bool) {
	pc.End(wire.AppendLenEncInt(pc.Begin(), uint64(len(cols))))
	for i := range cols {
		pc.End(wire.AppendColumnDef(pc.Begin(), &cols[i]))
	}
	if !deprecateEOF {
		pc.End(wire.AppendEOF(pc.Begin(), wire.ServerStatusAutocommit))
	}
	for _, row := range rows {
		b := pc.Begin()
		if binaryRows {
			b = append(b, 0)
			bitmap := len(b)
			b = append(b, make([]byte, (len(row)+9)/8)...)
			for i, v := range row {
				if v.kind == valNull {
					bit := i + 2
					b[bitmap+bit/8] |= 1 << (bit % 8)
					continue
				}
				b = v.appendBinary(b, cols[i].ColType)
			}
		} else {
			for _, v := range row {
				if v.kind == valNull {
					b = append(b, wire.LenencNull)
				} else {
					b = wire.AppendLenEncString(b, v.text())
				}
			}
		}
		pc.End(b)
	}
	endResultSet(pc, deprecateEOF)
}

// syntaxError is mysqld's ER_PARSE_ERROR for the text from near on.
func syntaxError(near []byte) *wire.ServerError {
	if len(near) > 80 {
		near = near[:80]
	}
	return &wire.ServerError{Code: wire.ErParse, State: "42000", Message: fmt.Sprintf(
		"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line 1", near)}
}

// evalContext is what an expression may read about its connection.
type evalContext struct {
	c   *serverConn
	now time.Time
	// varies is set when a value depends on the connection or the time,
	// so that the result must not be cached.
	varies bool
	// sleep is what SLEEP(n) calls; nil means time.Sleep.
	sleep func(time.Duration)
}

// mariaDB reports whether the server greets as MariaDB, whose types of
// some expressions differ from MySQL's.
func (ctx *evalContext) mariaDB() bool { return ctx.c != nil && ctx.c.s.mariaDB }

// exprParser is a recursive-descent parser and evaluator over one SELECT's
// text.
type exprParser struct {
	src    []byte
	pos    int
	tokEnd int // where the last token ended, before blanks and comments
	ctx    *evalContext
	err    *wire.ServerError
}

// evalSelect evaluates "SELECT item[, item...] [FROM DUAL] [LIMIT n]".
func evalSelect(sql []byte, ctx *evalContext) (*exprResult, *wire.ServerError) {
	p := &exprParser{src: sql, ctx: ctx}
	p.space()
	// Leading parentheses around the whole statement: "(SELECT 1)".
	parens := 0
	for p.peekByte('(') {
		p.pos++
		parens++
		p.space()
	}
	if !p.keyword("SELECT") {
		return nil, syntaxError(p.rest())
	}
	for p.keyword("ALL") || p.keyword("DISTINCT") || p.keyword("SQL_NO_CACHE") || p.keyword("SQL_CACHE") ||
		p.keyword("SQL_CALC_FOUND_ROWS") || p.keyword("HIGH_PRIORITY") || p.keyword("STRAIGHT_JOIN") {
	}
	r := &exprResult{}
	for {
		start := p.pos
		v := p.expr()
		if p.err != nil {
			return nil, p.err
		}
		name := string(bytes.TrimSpace(p.src[start:max(start, p.tokEnd)]))
		literal := p.literalOnly(start)
		if v.kind == valString && isStringLiteral(name) {
			name = v.s // mysqld names a literal string's column by its value
		}
		if p.keyword("AS") {
			alias, ok := p.alias()
			if !ok {
				return nil, syntaxError(p.rest())
			}
			name = alias
		} else if alias, ok := p.alias(); ok {
			name = alias
		}
		col := v.column(name, literal, ctx.mariaDB())
		r.cols = append(r.cols, col)
		r.row = append(r.row, v)
		if !p.punct(',') {
			break
		}
	}
	if p.keyword("FROM") && !p.keyword("DUAL") {
		return nil, syntaxError(p.rest())
	}
	if p.keyword("LIMIT") {
		n, ok := p.integer()
		if ok && p.punct(',') {
			n, ok = p.integer()
		} else if ok && p.keyword("OFFSET") {
			_, ok = p.integer()
		}
		if !ok {
			return nil, syntaxError(p.rest())
		}
		r.noRows = n == 0
	}
	for ; parens > 0 && p.punct(')'); parens-- {
	}
	p.punct(';')
	if parens > 0 || p.pos < len(p.src) {
		return nil, syntaxError(p.rest())
	}
	r.constant = !ctx.varies
	return r, nil
}

func isStringLiteral(s string) bool {
	return len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0]
}

// literalOnly reports whether the item starting at start is a plain
// literal other than NULL, which mysqld marks NOT NULL.
func (p *exprParser) literalOnly(start int) bool {
	s := bytes.TrimSpace(p.src[start:max(start, p.tokEnd)])
	if len(s) == 0 {
		return false
	}
	if isStringLiteral(string(s)) {
		return true
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || c == '.' || c == '-' || c == '+' || c == ' ') {
			return false
		}
	}
	return true
}

func (p *exprParser) rest() []byte {
	if p.pos > len(p.src) {
		return nil
	}
	return p.src[p.pos:]
}

func (p *exprParser) fail() {
	if p.err == nil {
		p.err = syntaxError(p.rest())
	}
}

// space skips blanks and comments, entering executable comments.
func (p *exprParser) space() {
	p.tokEnd = p.pos
	rest := skipSpace(p.src[p.pos:], false)
	p.pos = len(p.src) - len(rest)
}

func (p *exprParser) peekByte(c byte) bool { return p.pos < len(p.src) && p.src[p.pos] == c }

func (p *exprParser) punct(c byte) bool {
	if p.peekByte(c) {
		p.pos++
		p.space()
		return true
	}
	return false
}

func (p *exprParser) keyword(kw string) bool {
	if p.pos < len(p.src) && hasKeyword(p.src[p.pos:], kw) {
		p.pos += len(kw)
		p.space()
		return true
	}
	return false
}

// ident reads an identifier, plain or in backquotes.
func (p *exprParser) ident() (string, bool) {
	if p.peekByte('`') {
		end := skipQuoted(p.src, p.pos)
		if end >= len(p.src) || p.src[end] != '`' || end == p.pos {
			return "", false
		}
		s := strings.ReplaceAll(string(p.src[p.pos+1:end]), "``", "`")
		p.pos = end + 1
		p.space()
		return s, true
	}
	start := p.pos
	for p.pos < len(p.src) && isIdentByte(p.src[p.pos]) {
		p.pos++
	}
	if p.pos == start || '0' <= p.src[start] && p.src[start] <= '9' {
		p.pos = start
		return "", false
	}
	s := string(p.src[start:p.pos])
	p.space()
	return s, true
}

// alias reads a column alias: an identifier that is not a reserved word
// ending the select list, or a quoted string.
func (p *exprParser) alias() (string, bool) {
	if p.peekByte('\'') || p.peekByte('"') {
		v, ok := p.stringLiteral()
		return v, ok
	}
	for _, kw := range []string{"FROM", "LIMIT", "WHERE", "INTO", "FOR", "UNION", "ORDER", "GROUP", "HAVING"} {
		if p.pos < len(p.src) && hasKeyword(p.src[p.pos:], kw) {
			return "", false
		}
	}
	return p.ident()
}

func (p *exprParser) integer() (int64, bool) {
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.ParseInt(string(p.src[start:p.pos]), 10, 64)
	if err != nil {
		p.pos = start
		return 0, false
	}
	p.space()
	return n, true
}

func (p *exprParser) stringLiteral() (string, bool) {
	q := p.src[p.pos]
	var b []byte
	for i := p.pos + 1; i < len(p.src); i++ {
		ch := p.src[i]
		switch {
		case ch == '\\' && i+1 < len(p.src):
			i++
			switch e := p.src[i]; e {
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'r':
				b = append(b, '\r')
			case '0':
				b = append(b, 0)
			default:
				b = append(b, e)
			}
		case ch == q && i+1 < len(p.src) && p.src[i+1] == q:
			b = append(b, q)
			i++
		case ch == q:
			p.pos = i + 1
			p.space()
			return string(b), true
		default:
			b = append(b, ch)
		}
	}
	return "", false
}

// expr := sum [comparison sum]
func (p *exprParser) expr() value {
	a := p.sum()
	for _, op := range []string{"<=", ">=", "<>", "!=", "=", "<", ">"} {
		if p.err == nil && bytes.HasPrefix(p.rest(), []byte(op)) {
			p.pos += len(op)
			p.space()
			b := p.sum()
			return compare(a, b, op)
		}
	}
	return a
}

func compare(a, b value, op string) value {
	if a.kind == valNull || b.kind == valNull {
		return value{kind: valNull}
	}
	var c int
	if isNumeric(a) && isNumeric(b) {
		x, y := toFloat(a), toFloat(b)
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	} else {
		c = strings.Compare(strings.ToLower(a.text()), strings.ToLower(b.text()))
	}
	var t bool
	switch op {
	case "=":
		t = c == 0
	case "<>", "!=":
		t = c != 0
	case "<":
		t = c < 0
	case ">":
		t = c > 0
	case "<=":
		t = c <= 0
	case ">=":
		t = c >= 0
	}
	if t {
		return value{kind: valInt, i: 1}
	}
	return value{kind: valInt}
}

func isNumeric(v value) bool { return v.kind == valInt || v.kind == valUint || v.kind == valDecimal }

func toFloat(v value) float64 {
	switch v.kind {
	case valInt:
		return float64(v.i)
	case valUint:
		return float64(uint64(v.i))
	}
	f, _ := strconv.ParseFloat(strings.TrimSpace(v.text()), 64)
	return f
}

// sum := product {('+'|'-') product}
func (p *exprParser) sum() value {
	a := p.product()
	for p.err == nil {
		switch {
		case p.punct('+'):
			a = arith(a, p.product(), '+')
		case p.peekByte('-') && !bytes.HasPrefix(p.rest(), []byte("-- ")):
			p.punct('-')
			a = arith(a, p.product(), '-')
		default:
			return a
		}
	}
	return a
}

// product := unary {('*'|'/'|'%'|DIV|MOD) unary}
func (p *exprParser) product() value {
	a := p.unary()
	for p.err == nil {
		switch {
		case p.punct('*'):
			a = arith(a, p.unary(), '*')
		case p.punct('/'):
			a = arith(a, p.unary(), '/')
		case p.punct('%'), p.keyword("MOD"):
			a = arith(a, p.unary(), '%')
		case p.keyword("DIV"):
			a = arith(a, p.unary(), 'd')
		default:
			return a
		}
	}
	return a
}

// arith follows MySQL's rules as far as the mock needs them: integer
// operands give an integer (a BIGINT for +, -, *, DIV, %), '/' gives a
// DECIMAL with div_precision_increment (4) more decimals, NULL or a zero
// divisor gives NULL.
func arith(a, b value, op byte) value {
	if a.kind == valNull || b.kind == valNull {
		return value{kind: valNull}
	}
	ints := (a.kind == valInt || a.kind == valUint) && (b.kind == valInt || b.kind == valUint)
	if ints && op != '/' {
		x, y := a.i, b.i
		switch op {
		case '+':
			return value{kind: valInt, i: x + y}
		case '-':
			return value{kind: valInt, i: x - y}
		case '*':
			return value{kind: valInt, i: x * y}
		case 'd', '%':
			if y == 0 {
				return value{kind: valNull}
			}
			if op == 'd' {
				return value{kind: valInt, i: x / y}
			}
			return value{kind: valInt, i: x % y}
		}
	}
	x, y := toFloat(a), toFloat(b)
	scale := max(a.scale, b.scale)
	var r float64
	switch op {
	case '+':
		r = x + y
	case '-':
		r = x - y
	case '*':
		r, scale = x*y, a.scale+b.scale
	case '/':
		if y == 0 {
			return value{kind: valNull}
		}
		r, scale = x/y, a.scale+4
	case 'd':
		if y == 0 {
			return value{kind: valNull}
		}
		return value{kind: valInt, i: int64(x / y)}
	case '%':
		if y == 0 {
			return value{kind: valNull}
		}
		r = x - y*float64(int64(x/y))
	}
	return value{kind: valDecimal, s: strconv.FormatFloat(r, 'f', scale, 64), scale: scale}
}

// unary := ['-'|'+'|NOT] unary | primary
func (p *exprParser) unary() value {
	switch {
	case p.punct('-'):
		v := p.unary()
		switch v.kind {
		case valInt, valUint:
			v.kind, v.i = valInt, -v.i
			if v.width > 0 {
				v.width++ // the sign
				v.narrow = v.width <= maxNarrowWidth
			}
		case valDecimal:
			if strings.HasPrefix(v.s, "-") {
				v.s = v.s[1:]
			} else {
				v.s = "-" + v.s
			}
		case valString:
			return arith(value{kind: valInt}, v, '-')
		}
		return v
	case p.punct('+'):
		return p.unary()
	case p.keyword("NOT"):
		v := p.unary()
		if v.kind == valNull {
			return v
		}
		if toFloat(v) == 0 {
			return value{kind: valInt, i: 1}
		}
		return value{kind: valInt}
	}
	return p.primary()
}

func (p *exprParser) primary() value {
	if p.err != nil {
		return value{}
	}
	if p.pos >= len(p.src) {
		p.fail()
		return value{}
	}
	switch ch := p.src[p.pos]; {
	case '0' <= ch && ch <= '9' || ch == '.':
		return p.number()
	case ch == '\'' || ch == '"':
		s, ok := p.stringLiteral()
		if !ok {
			p.fail()
		}
		return value{kind: valString, s: s}
	case ch == '(':
		p.punct('(')
		v := p.expr()
		if !p.punct(')') {
			p.fail()
		}
		return v
	case ch == '@':
		return p.variable()
	case ch == '?':
		// Placeholders are refused at prepare (ER_UNSUPPORTED_PS).
		p.fail()
		return value{}
	}
	start := p.pos
	name, ok := p.ident()
	if !ok {
		p.fail()
		return value{}
	}
	upperName := strings.ToUpper(name)
	switch upperName {
	case "NULL":
		return value{kind: valNull}
	case "TRUE":
		return value{kind: valInt, i: 1}
	case "FALSE":
		return value{kind: valInt}
	}
	if !p.punct('(') {
		// The functions SQL lets one call without parentheses.
		switch upperName {
		case "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_USER", "CURRENT_DATE", "CURRENT_TIME", "UTC_TIMESTAMP":
			return p.call(upperName, nil)
		}
		p.pos = start
		p.err = &wire.ServerError{Code: 1054, State: "42S22", Message: fmt.Sprintf("Unknown column '%s' in 'field list'", name)}
		return value{}
	}
	var args []value
	if !p.punct(')') {
		for {
			args = append(args, p.expr())
			if p.err != nil {
				return value{}
			}
			if p.punct(')') {
				break
			}
			if !p.punct(',') {
				p.fail()
				return value{}
			}
		}
	}
	return p.call(upperName, args)
}

func (p *exprParser) number() value {
	start := p.pos
	dot := -1
	for p.pos < len(p.src) {
		ch := p.src[p.pos]
		if ch == '.' && dot < 0 {
			dot = p.pos
		} else if !('0' <= ch && ch <= '9') {
			break
		}
		p.pos++
	}
	if p.pos < len(p.src) && isIdentByte(p.src[p.pos]) {
		p.pos = start
		p.fail()
		return value{}
	}
	lit := string(p.src[start:p.pos])
	p.space()
	if dot < 0 {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return value{kind: valInt, i: n, narrow: len(lit) <= maxNarrowWidth, width: len(lit)}
		}
		if n, err := strconv.ParseUint(lit, 10, 64); err == nil {
			return value{kind: valUint, i: int64(n), width: len(lit)}
		}
		return value{kind: valDecimal, s: lit}
	}
	if lit == "." {
		p.pos = start
		p.fail()
		return value{}
	}
	// A DECIMAL literal's width: its digits as written, the point, and
	// room for a sign (my_decimal_precision_to_length).
	width := len(lit) + 1
	if lit[0] == '.' {
		lit = "0" + lit
	}
	return value{kind: valDecimal, s: lit, scale: len(lit) - strings.IndexByte(lit, '.') - 1, width: width}
}

// maxNarrowWidth is the widest integer MariaDB types INT rather than
// BIGINT: nine characters, sign included (type_handler_long_or_longlong).
const maxNarrowWidth = 9

// variable reads @@[scope.]name (a system variable) or @name (a user
// variable: the mock keeps none, so NULL as mysqld gives an unset one).
func (p *exprParser) variable() value {
	start := p.pos
	if !bytes.HasPrefix(p.rest(), []byte("@@")) {
		p.pos++
		if p.peekByte('\'') || p.peekByte('"') {
			p.stringLiteral()
		} else if _, ok := p.ident(); !ok {
			p.fail()
		}
		return value{kind: valNull}
	}
	p.pos += 2
	name, ok := p.ident()
	if !ok {
		p.pos = start
		p.fail()
		return value{}
	}
	if up := strings.ToUpper(name); (up == "SESSION" || up == "GLOBAL" || up == "LOCAL") && p.peekByte('.') {
		p.pos++
		if name, ok = p.ident(); !ok {
			p.fail()
			return value{}
		}
	}
	v, ok := p.ctx.c.sysVar(strings.ToLower(name))
	if !ok {
		p.err = &wire.ServerError{Code: wire.ErUnknownSystemVariable, State: "HY000", Message: fmt.Sprintf("Unknown system variable '%s'", name)}
		return value{}
	}
	return v
}

// call evaluates the functions clients and monitors ask a server about
// itself; any other function is unknown, as in a schema without it.
func (p *exprParser) call(name string, args []value) value {
	ctx := p.ctx
	c := ctx.c
	nargs := func(n int) bool {
		if len(args) != n {
			p.err = &wire.ServerError{Code: 1582, State: "42000", Message: fmt.Sprintf("Incorrect parameter count in the call to native function '%s'", name)}
			return false
		}
		return true
	}
	switch name {
	case "VERSION":
		if nargs(0) {
			return value{kind: valString, s: c.s.cfg.Version}
		}
	case "DATABASE", "SCHEMA":
		if nargs(0) {
			ctx.varies = true
			if c.db == "" {
				return value{kind: valNull}
			}
			return value{kind: valString, s: c.db}
		}
	case "CONNECTION_ID":
		if nargs(0) {
			ctx.varies = true
			return value{kind: valUint, i: int64(c.connID)}
		}
	case "USER", "SESSION_USER", "SYSTEM_USER":
		if nargs(0) {
			ctx.varies = true
			return value{kind: valString, s: c.user + "@" + c.peerHost()}
		}
	case "CURRENT_USER":
		if nargs(0) {
			ctx.varies = true
			return value{kind: valString, s: c.user + "@%"}
		}
	case "NOW", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "SYSDATE", "UTC_TIMESTAMP":
		if len(args) > 1 || !(len(args) == 0 || args[0].kind == valInt && args[0].i == 0) {
			// Fractional seconds are not kept.
			p.err = &wire.ServerError{Code: wire.ErNotSupportedYet, State: "42000", Message: "This version of MySQL doesn't yet support 'fractional seconds in " + name + "()'"}
			return value{}
		}
		ctx.varies = true
		t := ctx.now
		if name == "UTC_TIMESTAMP" {
			t = t.UTC()
		}
		t = t.Truncate(time.Second)
		return value{kind: valDateTime, t: t, s: t.Format(time.DateTime)}
	case "CURRENT_DATE", "CURDATE":
		if nargs(0) {
			ctx.varies = true
			return value{kind: valString, s: ctx.now.Format(time.DateOnly)}
		}
	case "UNIX_TIMESTAMP":
		if nargs(0) {
			ctx.varies = true
			return value{kind: valUint, i: ctx.now.Unix()}
		}
	case "LAST_INSERT_ID":
		if nargs(0) {
			ctx.varies = true
			return value{kind: valUint, i: int64(c.lastInsertID)}
		}
	case "ROW_COUNT", "FOUND_ROWS":
		if nargs(0) {
			return value{kind: valInt}
		}
	case "SLEEP":
		// mysqld sleeps on the connection's thread and returns 0; so does
		// the mock, on the connection's goroutine.
		if nargs(1) {
			ctx.varies = true
			if args[0].kind != valNull {
				if d := time.Duration(toFloat(args[0]) * float64(time.Second)); d > 0 {
					if ctx.sleep != nil {
						ctx.sleep(d)
					} else {
						time.Sleep(d)
					}
				}
			}
			v := value{kind: valInt, narrow: true, notNull: args[0].kind != valNull}
			if ctx.mariaDB() {
				v.width = 1 // MariaDB's Item_func_sleep: one character
			}
			return v
		}
	case "COALESCE", "IFNULL":
		for _, a := range args {
			if a.kind != valNull {
				return a
			}
		}
		return value{kind: valNull}
	default:
		db := c.db
		if db == "" {
			p.err = &wire.ServerError{Code: 1046, State: "3D000", Message: "No database selected"}
		} else {
			p.err = &wire.ServerError{Code: wire.ErFunctionNotDefined, State: "42000", Message: fmt.Sprintf("FUNCTION %s.%s does not exist", db, strings.ToLower(name))}
		}
	}
	return value{}
}

package mock

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
)

// The mock evaluates the SELECTs without a table that drivers, pools and
// proxies send — SELECT 1, SELECT @@version_comment LIMIT 1, SELECT
// DATABASE(), CONNECTION_ID(), NOW() — with the column types mysqld gives
// them, so that a driver scans SELECT 1 as an integer. Anything it cannot
// parse gets the parse error mysqld would send, never a made-up row.

// Decimals mysqld reports for a string column (NOT_FIXED_DEC): MariaDB's
// and MySQL's constants differ.
const (
	stringDecimalsMariaDB = 39
	stringDecimalsMySQL   = 31
)

// valueColumn returns the column definition mysqld gives a value of v's type
// under name: integers LONGLONG (MariaDB: INT up to nine characters) and
// temporal values DATETIME, both with the binary charset; strings
// VAR_STRING in the connection's utf8mb4, four bytes a character. A
// literal's length is its text's, as mysqld's Item_int and Item_decimal
// keep it.
func valueColumn(v sqlread.Value, name string, notNull, mariaDB bool) wire.ColumnDef {
	c := wire.ColumnDef{Name: []byte(name), Charset: 63, Flags: wire.FlagBinary}
	switch v.Kind {
	case sqlread.Null:
		c.ColType = wire.TypeNull
		if mariaDB && v.Width > 0 {
			// An unset user variable: MariaDB types it a binary
			// LONGBLOB of Width, decimals NOT_FIXED_DEC.
			c.ColType, c.Length, c.Decimals = wire.TypeLongBlob, uint32(v.Width), stringDecimalsMariaDB
		}
	case sqlread.Int, sqlread.Uint:
		c.ColType, c.Length = wire.TypeLongLong, 21
		if v.Width > 0 {
			c.Length = uint32(v.Width)
		}
		if v.Kind == sqlread.Uint {
			c.Flags |= wire.FlagUnsigned
		}
		if mariaDB && v.Narrow {
			c.ColType = wire.TypeLong
		}
	case sqlread.Decimal:
		c.ColType, c.Length, c.Decimals = wire.TypeNewDecimal, uint32(len(v.S)+1), uint8(v.Scale)
		if v.Width > 0 {
			c.Length = uint32(v.Width)
		}
	case sqlread.String:
		c.ColType, c.Charset, c.Flags = wire.TypeVarString, wire.ClientCharsetUTF8MB4, 0
		c.Length = uint32(utf8.RuneCountInString(v.S) * 4)
		c.Decimals = stringDecimalsMySQL
		if mariaDB {
			c.Decimals = stringDecimalsMariaDB
		}
	case sqlread.DateTime:
		c.ColType, c.Length = wire.TypeDateTime, 19
		if v.Width == dateWidth {
			c.ColType, c.Length = wire.TypeDate, dateWidth
		}
	}
	if (notNull || v.NotNull) && v.Kind != sqlread.Null {
		c.Flags |= wire.FlagNotNull
	}
	return c
}

// dateWidth marks a DateTime value that is a DATE (CURDATE()): its ten
// characters, YYYY-MM-DD.
const dateWidth = 10

// appendBinaryValue encodes a non-NULL v as a binary-protocol row value of a
// column of type colType.
func appendBinaryValue(b []byte, v sqlread.Value, colType uint8) []byte {
	switch v.Kind {
	case sqlread.Int, sqlread.Uint:
		if colType == wire.TypeLong {
			return binary.LittleEndian.AppendUint32(b, uint32(v.I))
		}
		return binary.LittleEndian.AppendUint64(b, uint64(v.I))
	case sqlread.DateTime:
		t := v.T
		if colType == wire.TypeDate {
			b = append(b, 4)
			b = binary.LittleEndian.AppendUint16(b, uint16(t.Year()))
			return append(b, byte(t.Month()), byte(t.Day()))
		}
		b = append(b, 7)
		b = binary.LittleEndian.AppendUint16(b, uint16(t.Year()))
		return append(b, byte(t.Month()), byte(t.Day()), byte(t.Hour()), byte(t.Minute()), byte(t.Second()))
	}
	return wire.AppendLenEncString(b, v.S)
}

// exprResult is an evaluated SELECT: its columns, its one row (or none
// under LIMIT 0), and, when nothing in it varies between executions, the
// responses pre-encoded.
type exprResult struct {
	cols     []wire.ColumnDef
	row      []sqlread.Value
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
	rows := [][]sqlread.Value{r.row}
	if r.noRows {
		rows = nil
	}
	writeResult(pc, r.cols, rows, deprecateEOF, binaryRows)
}

// writeResult frames a whole result set.
func writeResult(pc *wire.PacketConn, cols []wire.ColumnDef, rows [][]sqlread.Value, deprecateEOF, binaryRows bool) {
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
			var bitmap int
			b, bitmap = appendBinaryRowHead(b, len(row))
			for i, v := range row {
				if v.Kind == sqlread.Null {
					setBinaryNull(b, bitmap, i)
					continue
				}
				b = appendBinaryValue(b, v, cols[i].ColType)
			}
		} else {
			for _, v := range row {
				if v.Kind == sqlread.Null {
					b = append(b, wire.LenencNull)
				} else {
					b = wire.AppendLenEncString(b, v.Text())
				}
			}
		}
		pc.End(b)
	}
	endResultSet(pc, deprecateEOF)
}

// appendBinaryRowHead starts a binary-protocol row of n columns: its 0x00
// header, then a NULL bitmap of n+2 bits (the first two reserved), all
// clear, which starts at bitmap.
func appendBinaryRowHead(b []byte, n int) (_ []byte, bitmap int) {
	b = append(b, 0)
	bitmap = len(b)
	for range (n + 9) / 8 {
		b = append(b, 0)
	}
	return b, bitmap
}

// setBinaryNull marks column i NULL in the bitmap appendBinaryRowHead
// began at bitmap.
func setBinaryNull(b []byte, bitmap, i int) {
	bit := i + 2
	b[bitmap+bit/8] |= 1 << (bit % 8)
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

// evalSelect evaluates "SELECT item[, item...] [FROM DUAL] [LIMIT n]".
func evalSelect(sql []byte, ctx *evalContext) (*exprResult, *wire.ServerError) {
	p := &parser{ctx: ctx}
	p.Init(sql)
	r := p.selectPart()
	p.end()
	if p.err != nil {
		return nil, p.err
	}
	return r, nil
}

// selectPart reads one SELECT without a table, in parentheses or not,
// and leaves the lexer on what follows it (UNION, ';' or the end).
func (p *parser) selectPart() *exprResult {
	parens := 0
	for p.AcceptOp('(') {
		parens++
	}
	if !p.expect(sqlread.KwSelect) {
		return nil
	}
	r := p.selectStmt()
	if r == nil {
		return nil
	}
	for ; parens > 0 && p.AcceptOp(')'); parens-- {
	}
	if parens > 0 {
		p.fail()
		return nil
	}
	r.constant = !p.ctx.varies
	return r
}

// exprItem evaluates one item of a select list without a table into r:
// its value and its column, named by its alias, else by its text (a
// string literal's by its value, as mysqld names it).
func (p *parser) exprItem(r *exprResult) {
	start := p.Tok.Start
	v := p.expr()
	if !p.ok() {
		return
	}
	text := bytes.TrimSpace(p.Src[start:max(start, p.PrevEnd)])
	name := string(text)
	literal := isLiteral(text)
	if v.Kind == sqlread.String && isStringLiteral(name) {
		name = v.S
	}
	if t, ok := p.alias(); ok {
		name = p.aliasText(t)
	}
	if !p.ok() {
		return
	}
	r.cols = append(r.cols, valueColumn(v, name, literal, p.ctx.mariaDB()))
	r.row = append(r.row, v)
}

func isStringLiteral(s string) bool {
	return len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0]
}

// isLiteral reports whether an item's text is a plain literal other than
// NULL, which mysqld marks NOT NULL.
func isLiteral(s []byte) bool {
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

// expr := sum [comparison sum], sum being arithmetic(0)
func (p *parser) expr() sqlread.Value {
	a := p.arithmetic(0)
	if !p.ok() {
		return a
	}
	if op, ok := p.comparison(); ok {
		return compare(a, p.arithmetic(0), op)
	}
	return a
}

func compare(a, b sqlread.Value, op byte) sqlread.Value {
	if a.Kind == sqlread.Null || b.Kind == sqlread.Null {
		return sqlread.Value{Kind: sqlread.Null}
	}
	var c int
	if a.IsNumeric() && b.IsNumeric() {
		x, y := toFloat(a), toFloat(b)
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	} else {
		c = strings.Compare(strings.ToLower(a.Text()), strings.ToLower(b.Text()))
	}
	return boolValue(holds(op, c))
}

// holds reports whether a three-way comparison's result c (below 0, 0
// or above 0) satisfies the comparison op, as the lexer names it.
func holds(op byte, c int) bool {
	switch op {
	case '=':
		return c == 0
	case sqlread.OpNE:
		return c != 0
	case '<':
		return c < 0
	case '>':
		return c > 0
	case sqlread.OpLE:
		return c <= 0
	case sqlread.OpGE:
		return c >= 0
	}
	return false
}

// boolValue is a comparison's or NOT's result: one character, which
// MariaDB types INT.
func boolValue(t bool) sqlread.Value {
	v := sqlread.Value{Kind: sqlread.Int, Narrow: true, Width: 1}
	if t {
		v.I = 1
	}
	return v
}

// intWidth is the display width of an integer operand: the literal's or
// the computed one, else BIGINT's.
func intWidth(v sqlread.Value) int32 {
	if v.Width > 0 {
		return v.Width
	}
	return 21
}

// intResult is an integer operator's result of width w, which MariaDB
// types INT up to maxNarrowWidth characters (type_handler_long_or_longlong).
func intResult(n int64, w int32) sqlread.Value {
	return sqlread.Value{Kind: sqlread.Int, I: n, Width: w, Narrow: w <= maxNarrowWidth}
}

func toFloat(v sqlread.Value) float64 {
	switch v.Kind {
	case sqlread.Int:
		return float64(v.I)
	case sqlread.Uint:
		return float64(uint64(v.I))
	}
	f, _ := strconv.ParseFloat(strings.TrimSpace(v.Text()), 64)
	return f
}

// arithOps are the arithmetic operators by precedence, the loosest
// first: each is arith's name for it, read as that symbol, or as kw
// where one is set.
var arithOps = [...][]struct {
	op byte
	kw sqlread.Keyword
}{
	{{op: '+'}, {op: '-'}},
	{{op: '*'}, {op: '/'}, {op: '%'}, {op: '%', kw: sqlread.KwMod}, {op: 'd', kw: sqlread.KwDiv}},
}

// arithmetic := operand {op operand}, left to right, with the operators
// of arithOps[level]; an operand is the next level's arithmetic, past the
// last a unary:
//
//	sum     := product {('+'|'-') product}
//	product := unary {('*'|'/'|'%'|DIV|MOD) unary}
func (p *parser) arithmetic(level int) sqlread.Value {
	a := p.operand(level)
	for p.err == nil {
		op := p.acceptArith(level)
		if op == 0 {
			break
		}
		a = arith(a, p.operand(level), op)
	}
	return a
}

func (p *parser) operand(level int) sqlread.Value {
	if level+1 < len(arithOps) {
		return p.arithmetic(level + 1)
	}
	return p.unary()
}

// acceptArith takes an operator of arithOps[level] and returns its name,
// 0 when none comes.
func (p *parser) acceptArith(level int) byte {
	for _, o := range arithOps[level] {
		if o.kw != sqlread.KwNone && p.Accept(o.kw) || o.kw == sqlread.KwNone && p.AcceptOp(o.op) {
			return o.op
		}
	}
	return 0
}

// arith follows MySQL's rules as far as the mock needs them: integer
// operands give an integer, '/' gives a DECIMAL with
// div_precision_increment (4) more decimals, NULL or a zero divisor gives
// NULL. An integer result's width is the operands' as mysqld derives it
// (+ and -: the wider plus a digit and a sign; *: the sum; DIV: the
// dividend's; %: the wider plus a sign), so MariaDB's INT or BIGINT
// follows from it.
func arith(a, b sqlread.Value, op byte) sqlread.Value {
	if a.Kind == sqlread.Null || b.Kind == sqlread.Null {
		return sqlread.Value{Kind: sqlread.Null}
	}
	ints := (a.Kind == sqlread.Int || a.Kind == sqlread.Uint) && (b.Kind == sqlread.Int || b.Kind == sqlread.Uint)
	if ints && op != '/' {
		x, y := a.I, b.I
		wa, wb := intWidth(a), intWidth(b)
		switch op {
		case '+':
			return intResult(x+y, max(wa, wb)+2)
		case '-':
			return intResult(x-y, max(wa, wb)+2)
		case '*':
			return intResult(x*y, wa+wb)
		case 'd', '%':
			if y == 0 {
				return sqlread.Value{Kind: sqlread.Null}
			}
			if op == 'd' {
				return intResult(x/y, wa)
			}
			return intResult(x%y, max(wa, wb)+1)
		}
	}
	x, y := toFloat(a), toFloat(b)
	scale := max(a.Scale, b.Scale)
	var r float64
	switch op {
	case '+':
		r = x + y
	case '-':
		r = x - y
	case '*':
		r, scale = x*y, a.Scale+b.Scale
	case '/':
		if y == 0 {
			return sqlread.Value{Kind: sqlread.Null}
		}
		r, scale = x/y, a.Scale+4
	case 'd':
		if y == 0 {
			return sqlread.Value{Kind: sqlread.Null}
		}
		return sqlread.Value{Kind: sqlread.Int, I: int64(x / y)}
	case '%':
		if y == 0 {
			return sqlread.Value{Kind: sqlread.Null}
		}
		r = x - y*float64(int64(x/y))
	}
	return sqlread.Value{Kind: sqlread.Decimal, S: strconv.FormatFloat(r, 'f', int(scale), 64), Scale: scale}
}

// unary := ['-'|'+'|NOT] unary | primary
func (p *parser) unary() sqlread.Value {
	switch {
	case p.AcceptOp('-'):
		v := p.unary()
		switch v.Kind {
		case sqlread.Int, sqlread.Uint:
			v.Kind, v.I = sqlread.Int, -v.I
			if v.Width > 0 {
				v.Width++ // the sign
				v.Narrow = v.Width <= maxNarrowWidth
			}
		case sqlread.Decimal:
			if strings.HasPrefix(v.S, "-") {
				v.S = v.S[1:]
			} else {
				v.S = "-" + v.S
			}
		case sqlread.String:
			return arith(sqlread.Value{Kind: sqlread.Int}, v, '-')
		}
		return v
	case p.AcceptOp('+'):
		return p.unary()
	case p.Accept(sqlread.KwNot):
		v := p.unary()
		if v.Kind == sqlread.Null {
			return v
		}
		return boolValue(toFloat(v) == 0)
	}
	return p.primary()
}

func (p *parser) primary() sqlread.Value {
	if p.err != nil {
		return sqlread.Value{}
	}
	t := p.Tok
	switch {
	case t.Kind == sqlread.TokInt || t.Kind == sqlread.TokNumber:
		return p.number()
	case t.Kind == sqlread.TokString:
		p.Next()
		return sqlread.StringValue(string(p.StringOf(nil, t)))
	case p.IsOp('('):
		p.Next()
		v := p.expr()
		p.expectOp(')')
		return v
	case p.IsOp('@'):
		return p.variable()
	case t.Kind == sqlread.TokParam:
		// Placeholders are refused at prepare (ER_UNSUPPORTED_PS).
		p.fail()
		return sqlread.Value{}
	}
	nt, ok := p.name()
	if !ok {
		p.fail()
		return sqlread.Value{}
	}
	name := p.Ident(nt)
	upperName := strings.ToUpper(name)
	switch upperName {
	case "NULL":
		return sqlread.Value{}
	case "TRUE":
		return sqlread.Value{Kind: sqlread.Int, I: 1, Narrow: true}
	case "FALSE":
		return sqlread.Value{Kind: sqlread.Int, Narrow: true}
	}
	if !p.AcceptOp('(') {
		// The functions SQL lets one call without parentheses.
		switch upperName {
		case "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_USER", "CURRENT_DATE", "CURRENT_TIME", "UTC_TIMESTAMP":
			return p.call(upperName, nil)
		}
		p.err = &wire.ServerError{Code: 1054, State: "42S22", Message: fmt.Sprintf("Unknown column '%s' in 'field list'", name)}
		return sqlread.Value{}
	}
	var args []sqlread.Value
	if !p.AcceptOp(')') {
		p.list(func() { args = append(args, p.expr()) })
		if !p.expectOp(')') {
			return sqlread.Value{}
		}
	}
	return p.call(upperName, args)
}

// number reads a numeric literal: an integer (BIGINT, or BIGINT UNSIGNED
// past it, or a DECIMAL past that) or a DECIMAL with a point. The mock
// takes no exponent.
func (p *parser) number() sqlread.Value {
	lit := string(p.Tok.Of(p.Src))
	if strings.ContainsAny(lit, "eE") || lit == "." {
		p.fail()
		return sqlread.Value{}
	}
	p.Next()
	dot := strings.IndexByte(lit, '.')
	if dot < 0 {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return sqlread.Value{Kind: sqlread.Int, I: n, Narrow: len(lit) <= maxNarrowWidth, Width: int32(len(lit))}
		}
		if n, err := strconv.ParseUint(lit, 10, 64); err == nil {
			return sqlread.Value{Kind: sqlread.Uint, I: int64(n), Width: int32(len(lit))}
		}
		return sqlread.Value{Kind: sqlread.Decimal, S: lit}
	}
	// A DECIMAL literal's width: its digits as written, the point, and
	// room for a sign (my_decimal_precision_to_length).
	width := len(lit) + 1
	if lit[0] == '.' {
		lit = "0" + lit
	}
	return sqlread.Value{Kind: sqlread.Decimal, S: lit, Scale: int32(len(lit) - strings.IndexByte(lit, '.') - 1), Width: int32(width)}
}

// maxNarrowWidth is the widest integer MariaDB types INT rather than
// BIGINT: nine characters, sign included (type_handler_long_or_longlong).
const maxNarrowWidth = 9

// unsetUserVarWidth is the length MariaDB gives an unset user variable's
// LONGBLOB column: 16 MiB.
const unsetUserVarWidth = 1 << 24

// variable reads @@[scope.]name (a system variable) or @name (a user
// variable: the mock keeps none, so NULL as mysqld gives an unset one),
// with nothing between the @s and the name.
func (p *parser) variable() sqlread.Value {
	p.Next() // @
	if !p.IsOp('@') || !p.Adjacent() {
		t := p.Tok
		if !p.Adjacent() || t.Kind != sqlread.TokString && t.Kind != sqlread.TokIdent {
			p.fail()
			return sqlread.Value{}
		}
		if t.Kind == sqlread.TokString {
			p.Next()
		} else if _, ok := p.word(); !ok {
			p.fail()
		}
		return sqlread.Value{Width: unsetUserVarWidth}
	}
	p.Next() // the second @
	name, ok := p.adjacentWord()
	if up := strings.ToUpper(name); ok && (up == "SESSION" || up == "GLOBAL" || up == "LOCAL") && p.AcceptOp('.') {
		name, ok = p.adjacentWord()
	}
	if !ok {
		p.fail()
		return sqlread.Value{}
	}
	v, ok := p.ctx.c.sysVar(strings.ToLower(name))
	if !ok {
		p.err = &wire.ServerError{Code: wire.ErUnknownSystemVariable, State: "HY000", Message: fmt.Sprintf("Unknown system variable '%s'", name)}
		return sqlread.Value{}
	}
	return v
}

// adjacentWord reads a word with nothing between it and the token before
// it, as a variable's name follows its @ or its scope's dot.
func (p *parser) adjacentWord() (string, bool) {
	if !p.Adjacent() {
		return "", false
	}
	t, ok := p.word()
	return p.Ident(t), ok
}

// call evaluates the functions clients and monitors ask a server about
// itself; any other function is unknown, as in a schema without it.
func (p *parser) call(name string, args []sqlread.Value) sqlread.Value {
	switch name {
	case "VERSION", "DATABASE", "SCHEMA", "CONNECTION_ID", "USER", "SESSION_USER", "SYSTEM_USER",
		"CURRENT_USER", "LAST_INSERT_ID", "ROW_COUNT", "FOUND_ROWS":
		if p.arity(name, args, 0) {
			return p.session(name)
		}
	case "NOW", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "SYSDATE", "UTC_TIMESTAMP":
		return p.timestamp(name, args)
	case "CURRENT_DATE", "CURDATE", "UNIX_TIMESTAMP":
		if p.arity(name, args, 0) {
			return p.today(name)
		}
	case "SLEEP":
		if p.arity(name, args, 1) {
			return p.sleep(args[0])
		}
	case "COALESCE", "IFNULL":
		for _, a := range args {
			if a.Kind != sqlread.Null {
				return a
			}
		}
		return sqlread.Value{Kind: sqlread.Null}
	default:
		p.unknownFunction(name)
	}
	return sqlread.Value{}
}

// arity reports whether function name was given n arguments, and sets
// the server's error when not.
func (p *parser) arity(name string, args []sqlread.Value, n int) bool {
	if len(args) != n {
		p.err = &wire.ServerError{Code: 1582, State: "42000", Message: fmt.Sprintf("Incorrect parameter count in the call to native function '%s'", name)}
		return false
	}
	return true
}

// session evaluates a function of no arguments that tells about the
// server or the connection: its version, database, id, user and last
// statement. All but VERSION and the row counts vary by connection.
func (p *parser) session(name string) sqlread.Value {
	ctx := p.ctx
	c := ctx.c
	switch name {
	case "VERSION":
		return sqlread.Value{Kind: sqlread.String, S: c.s.cfg.Version}
	case "ROW_COUNT", "FOUND_ROWS":
		return sqlread.Value{Kind: sqlread.Int}
	}
	ctx.varies = true
	switch name {
	case "DATABASE", "SCHEMA":
		if c.db == "" {
			return sqlread.Value{Kind: sqlread.Null}
		}
		return sqlread.Value{Kind: sqlread.String, S: c.db}
	case "CONNECTION_ID":
		v := sqlread.Value{Kind: sqlread.Uint, I: int64(c.connID)}
		if ctx.mariaDB() {
			// MariaDB's Item_func_connection_id: an INT of ten.
			v.Width, v.Narrow = 10, true
		}
		return v
	case "CURRENT_USER":
		return sqlread.Value{Kind: sqlread.String, S: c.user + "@%"}
	case "LAST_INSERT_ID":
		return sqlread.Value{Kind: sqlread.Uint, I: int64(c.lastInsertID)}
	}
	// USER, SESSION_USER, SYSTEM_USER: the account as the client connected.
	return sqlread.Value{Kind: sqlread.String, S: c.user + "@" + c.peerHost()}
}

// timestamp is NOW and its synonyms: the statement's clock to the second,
// UTC for UTC_TIMESTAMP. Fractional seconds are not kept, so a precision
// other than 0 is refused.
func (p *parser) timestamp(name string, args []sqlread.Value) sqlread.Value {
	if len(args) > 1 || !(len(args) == 0 || args[0].Kind == sqlread.Int && args[0].I == 0) {
		p.err = &wire.ServerError{Code: wire.ErNotSupportedYet, State: "42000", Message: "This version of MySQL doesn't yet support 'fractional seconds in " + name + "()'"}
		return sqlread.Value{}
	}
	ctx := p.ctx
	ctx.varies = true
	t := ctx.now
	if name == "UTC_TIMESTAMP" {
		t = t.UTC()
	}
	t = t.Truncate(time.Second)
	return sqlread.Value{Kind: sqlread.DateTime, T: t, S: t.Format(time.DateTime)}
}

// today is CURRENT_DATE (CURDATE) or UNIX_TIMESTAMP of the statement's
// clock.
func (p *parser) today(name string) sqlread.Value {
	ctx := p.ctx
	ctx.varies = true
	if name == "UNIX_TIMESTAMP" {
		return sqlread.Value{Kind: sqlread.Uint, I: ctx.now.Unix()}
	}
	return sqlread.Value{Kind: sqlread.DateTime, T: ctx.now, S: ctx.now.Format(time.DateOnly), Width: dateWidth}
}

// sleep is SLEEP(secs): mysqld sleeps on the connection's thread and returns
// 0; so does the mock, on the connection's goroutine.
func (p *parser) sleep(secs sqlread.Value) sqlread.Value {
	ctx := p.ctx
	ctx.varies = true
	if secs.Kind != sqlread.Null {
		if d := time.Duration(toFloat(secs) * float64(time.Second)); d > 0 {
			if ctx.sleep != nil {
				ctx.sleep(d)
			} else {
				time.Sleep(d)
			}
		}
	}
	v := sqlread.Value{Kind: sqlread.Int, Narrow: true, NotNull: secs.Kind != sqlread.Null}
	if ctx.mariaDB() {
		v.Width = 1 // MariaDB's Item_func_sleep: one character
	}
	return v
}

// unknownFunction sets the error a server gives for a function it does
// not have: one looked up in the current database, or none selected.
func (p *parser) unknownFunction(name string) {
	db := p.ctx.c.db
	if db == "" {
		p.err = &wire.ServerError{Code: 1046, State: "3D000", Message: "No database selected"}
		return
	}
	p.err = &wire.ServerError{Code: wire.ErFunctionNotDefined, State: "42000", Message: fmt.Sprintf("FUNCTION %s.%s does not exist", db, strings.ToLower(name))}
}

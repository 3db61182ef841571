package mock

// The tokens of the statements the mock runs on sysbench's tables. The
// lexer works in place over the SQL text: a token is a span of it, so
// lexing the point select allocates nothing.

type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokIdent          // a bare word (keywords included) or a `quoted` name
	tokInt            // an unsigned integer literal
	tokNumber         // a literal with a fraction or exponent
	tokString         // '...' or "..."
	tokParam          // ?
	tokOp             // punctuation and comparison operators
	tokBad            // an unterminated quote or a byte no token starts with
)

// Operators as tokOp's op: single bytes stand for themselves.
const (
	opLE = 'l' // <=
	opGE = 'g' // >=
	opNE = 'n' // <> or !=
)

// span is a half-open byte range of the statement's text.
type span struct{ start, end int32 }

func (s span) of(src []byte) []byte { return src[s.start:s.end] }
func (s span) empty() bool          { return s.end <= s.start }

type token struct {
	kind   tokKind
	op     byte
	quoted bool // a `quoted` identifier or a string with escapes inside
	span        // the whole token, quotes included
	n      int64
	kw     keyword // a bare word's keyword, or kwNone
}

type lexer struct {
	src []byte
	pos int
	tok token
	// prevEnd is where the token before tok ended.
	prevEnd int32
}

func (l *lexer) init(src []byte) {
	l.src, l.pos, l.prevEnd = src, 0, 0
	l.next()
}

// next reads the token after the current one.
func (l *lexer) next() {
	l.prevEnd = l.tok.end
	if l.pos < len(l.src) && !identBytes[l.src[l.pos]] {
		// Blanks and comments (skipSpace's work) only where a word does
		// not start at once.
		rest := skipSpace(l.src[l.pos:], false)
		l.pos = len(l.src) - len(rest)
	}
	start := l.pos
	t := token{span: span{int32(start), int32(start)}}
	if l.pos >= len(l.src) {
		l.tok = t
		return
	}
	ch := l.src[l.pos]
	switch {
	case '0' <= ch && ch <= '9' || ch == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
		l.number(&t)
	case identBytes[ch]:
		for l.pos < len(l.src) && identBytes[l.src[l.pos]] {
			l.pos++
		}
		t.kind = tokIdent
		t.kw = lookupKeyword(l.src[start:l.pos])
	case ch == '`' || ch == '\'' || ch == '"':
		end := skipQuoted(l.src, l.pos)
		if end <= l.pos || end >= len(l.src) || l.src[end] != ch {
			t.kind, l.pos = tokBad, len(l.src)
			break
		}
		t.kind = tokString
		if ch == '`' {
			t.kind = tokIdent
		}
		for _, b := range l.src[l.pos+1 : end] {
			if b == '\\' || b == ch {
				t.quoted = true
			}
		}
		if ch == '`' {
			t.quoted = true
		}
		l.pos = end + 1
	case ch == '?':
		t.kind = tokParam
		l.pos++
	default:
		t.kind, t.op = tokOp, ch
		l.pos++
		if l.pos < len(l.src) {
			switch two := [2]byte{ch, l.src[l.pos]}; two {
			case [2]byte{'<', '='}:
				t.op = opLE
			case [2]byte{'>', '='}:
				t.op = opGE
			case [2]byte{'<', '>'}, [2]byte{'!', '='}:
				t.op = opNE
			}
			if t.op != ch {
				l.pos++
			}
		}
		switch t.op {
		case ',', '(', ')', '.', ';', '=', '<', '>', '+', '-', '*', opLE, opGE, opNE:
		default:
			t.kind = tokBad
		}
	}
	t.end = int32(l.pos)
	l.tok = t
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// identBytes is isIdentByte as a table, for the lexer's inner loop.
var identBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = isIdentByte(byte(c))
	}
	return t
}()

func (l *lexer) number(t *token) {
	t.kind = tokInt
	var n int64
	overflow := false
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		d := int64(l.src[l.pos] - '0')
		if n > (1<<63-1-d)/10 {
			overflow = true
		}
		n = n*10 + d
		l.pos++
	}
	if l.pos < len(l.src) && (l.src[l.pos] == '.' || upper(l.src[l.pos]) == 'E') {
		t.kind = tokNumber
		if l.src[l.pos] == '.' {
			l.pos++
			for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
				l.pos++
			}
		}
		if l.pos < len(l.src) && upper(l.src[l.pos]) == 'E' {
			l.pos++
			if l.pos < len(l.src) && (l.src[l.pos] == '+' || l.src[l.pos] == '-') {
				l.pos++
			}
			for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
				l.pos++
			}
		}
	}
	if overflow && t.kind == tokInt {
		t.kind = tokNumber
	}
	if l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
		// 1abc is an identifier in MySQL; the mock has no such names.
		for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
			l.pos++
		}
		t.kind = tokIdent
	}
	t.n = n
}

// is reports whether the current token is the keyword kw.
func (l *lexer) is(kw keyword) bool {
	return l.tok.kind == tokIdent && !l.tok.quoted && l.tok.kw == kw
}

// accept consumes the keyword kw if it is next.
func (l *lexer) accept(kw keyword) bool {
	if l.is(kw) {
		l.next()
		return true
	}
	return false
}

func (l *lexer) isOp(op byte) bool { return l.tok.kind == tokOp && l.tok.op == op }

func (l *lexer) acceptOp(op byte) bool {
	if l.isOp(op) {
		l.next()
		return true
	}
	return false
}

// name is an identifier's text without its backquotes; a name holding a
// doubled backquote keeps it doubled (the mock has no such tables).
func (l *lexer) name(t token) span {
	if t.kind == tokIdent && t.quoted {
		return span{t.start + 1, t.end - 1}
	}
	return t.span
}

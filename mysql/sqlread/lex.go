package sqlread

import "bytes"

// TokKind is what a token is.
type TokKind uint8

const (
	TokEOF    TokKind = iota
	TokIdent          // a bare word (keywords included) or a `quoted` name
	TokInt            // an unsigned integer literal that fits an int64
	TokNumber         // a literal with a fraction or an exponent, or too large for an int64
	TokString         // '...' or "..."
	TokParam          // ?
	TokOp             // punctuation and operators
	TokBad            // an unterminated quote or a byte no token starts with
)

// Operators of two bytes as a TokOp's Op; single bytes stand for themselves.
const (
	OpLE = 'l' // <=
	OpGE = 'g' // >=
	OpNE = 'n' // <> or !=
)

// Span is a half-open byte range of a statement's text.
type Span struct{ Start, End int32 }

// Of is the text s spans in src.
func (s Span) Of(src []byte) []byte { return src[s.Start:s.End] }

// Empty reports whether s spans nothing.
func (s Span) Empty() bool { return s.End <= s.Start }

// Token is one token of a statement.
type Token struct {
	Kind TokKind
	Op   byte
	// Quoted marks a `quoted` identifier, or a string holding escapes or
	// doubled quotes.
	Quoted bool
	Span           // the whole token, quotes included
	N      int64   // a TokInt's value
	Kw     Keyword // a bare word's keyword, or KwNone
}

// Lexer reads a statement one token at a time.
type Lexer struct {
	Src []byte
	Tok Token
	// PrevEnd is where the token before Tok ended: an item's text is
	// Src[its first token's Start:PrevEnd] once the token after it is read.
	PrevEnd int32
	pos     int
}

// Init starts reading src and reads its first token.
func (l *Lexer) Init(src []byte) {
	l.Src, l.pos, l.PrevEnd, l.Tok = src, 0, 0, Token{}
	l.Next()
}

// Next reads the token after the current one. Blanks and comments (--, #,
// /* */) between tokens are skipped; an executable comment (/*! ... */,
// /*M! ... */) is MySQL syntax its server runs, so its opening and its end
// are skipped and its contents read.
func (l *Lexer) Next() {
	l.PrevEnd = l.Tok.End
	if l.pos < len(l.Src) && !identBytes[l.Src[l.pos]] {
		// Blanks and comments only where a word does not start at once.
		rest := skipSpace(l.Src[l.pos:])
		l.pos = len(l.Src) - len(rest)
	}
	start := l.pos
	t := Token{Span: Span{int32(start), int32(start)}}
	if l.pos >= len(l.Src) {
		l.Tok = t
		return
	}
	ch := l.Src[l.pos]
	switch {
	case isDigit(ch) || ch == '.' && l.pos+1 < len(l.Src) && isDigit(l.Src[l.pos+1]):
		l.number(&t)
	case identBytes[ch]:
		for l.pos < len(l.Src) && identBytes[l.Src[l.pos]] {
			l.pos++
		}
		t.Kind = TokIdent
		t.Kw = lookupKeyword(l.Src[start:l.pos])
	case ch == '`' || ch == '\'' || ch == '"':
		end := skipQuoted(l.Src, l.pos)
		if end <= l.pos || end >= len(l.Src) || l.Src[end] != ch {
			t.Kind, l.pos = TokBad, len(l.Src)
			break
		}
		t.Kind = TokString
		if ch == '`' {
			t.Kind, t.Quoted = TokIdent, true
		}
		for _, b := range l.Src[l.pos+1 : end] {
			if b == '\\' || b == ch {
				t.Quoted = true
			}
		}
		l.pos = end + 1
	case ch == '?':
		t.Kind = TokParam
		l.pos++
	default:
		t.Kind, t.Op = TokOp, ch
		l.pos++
		if l.pos < len(l.Src) {
			switch two := [2]byte{ch, l.Src[l.pos]}; two {
			case [2]byte{'<', '='}:
				t.Op = OpLE
			case [2]byte{'>', '='}:
				t.Op = OpGE
			case [2]byte{'<', '>'}, [2]byte{'!', '='}:
				t.Op = OpNE
			}
			if t.Op != ch {
				l.pos++
			}
		}
		switch t.Op {
		case ',', '(', ')', '.', ';', '=', '<', '>', '+', '-', '*', '/', '%', '@', OpLE, OpGE, OpNE:
		default:
			t.Kind = TokBad
		}
	}
	t.End = int32(l.pos)
	l.Tok = t
}

func (l *Lexer) number(t *Token) {
	t.Kind = TokInt
	var n int64
	overflow := false
	for l.pos < len(l.Src) && isDigit(l.Src[l.pos]) {
		d := int64(l.Src[l.pos] - '0')
		if n > (1<<63-1-d)/10 {
			overflow = true
		}
		n = n*10 + d
		l.pos++
	}
	if l.pos < len(l.Src) && (l.Src[l.pos] == '.' || upper(l.Src[l.pos]) == 'E') {
		t.Kind = TokNumber
		if l.Src[l.pos] == '.' {
			l.pos++
			for l.pos < len(l.Src) && isDigit(l.Src[l.pos]) {
				l.pos++
			}
		}
		if l.pos < len(l.Src) && upper(l.Src[l.pos]) == 'E' {
			l.pos++
			if l.pos < len(l.Src) && (l.Src[l.pos] == '+' || l.Src[l.pos] == '-') {
				l.pos++
			}
			for l.pos < len(l.Src) && isDigit(l.Src[l.pos]) {
				l.pos++
			}
		}
	}
	if overflow && t.Kind == TokInt {
		t.Kind = TokNumber
	}
	if l.pos < len(l.Src) && identBytes[l.Src[l.pos]] {
		// 1abc is an identifier in MySQL; the mock has no such names.
		for l.pos < len(l.Src) && identBytes[l.Src[l.pos]] {
			l.pos++
		}
		t.Kind = TokIdent
	}
	t.N = n
}

// Is reports whether the current token is the keyword kw, unquoted.
func (l *Lexer) Is(kw Keyword) bool {
	return l.Tok.Kind == TokIdent && !l.Tok.Quoted && l.Tok.Kw == kw
}

// Accept consumes the keyword kw if it is next.
func (l *Lexer) Accept(kw Keyword) bool {
	if l.Is(kw) {
		l.Next()
		return true
	}
	return false
}

// IsOp reports whether the current token is the operator op.
func (l *Lexer) IsOp(op byte) bool { return l.Tok.Kind == TokOp && l.Tok.Op == op }

// AcceptOp consumes the operator op if it is next.
func (l *Lexer) AcceptOp(op byte) bool {
	if l.IsOp(op) {
		l.Next()
		return true
	}
	return false
}

// FollowedBy reports whether the byte right after the current token, with
// no blank between, is c: MySQL takes COUNT( as a call only so
// (IGNORE_SPACE off), and @@name only with nothing between.
func (l *Lexer) FollowedBy(c byte) bool { return l.pos < len(l.Src) && l.Src[l.pos] == c }

// Adjacent reports whether the current token starts where the one before
// it ended.
func (l *Lexer) Adjacent() bool { return l.Tok.Start == l.PrevEnd }

// Rest is the text from the current token on, as mysqld quotes it in a
// parse error.
func (l *Lexer) Rest() []byte { return l.Src[l.Tok.Start:] }

// Name is an identifier's text without its backquotes; a name holding a
// doubled backquote keeps it doubled (see Ident).
func (l *Lexer) Name(t Token) Span {
	if t.Kind == TokIdent && t.Quoted {
		return Span{t.Start + 1, t.End - 1}
	}
	return t.Span
}

// Ident is an identifier's name as a string, a doubled backquote inside
// backquotes standing for one.
func (l *Lexer) Ident(t Token) string {
	s := l.Name(t).Of(l.Src)
	if t.Quoted && bytes.Contains(s, []byte("``")) {
		return string(bytes.ReplaceAll(s, []byte("``"), []byte("`")))
	}
	return string(s)
}

// StringOf is a TokString's value: the text between its quotes with
// escapes and doubled quotes undone, appended to dst when it must be
// rewritten, else aliasing Src.
func (l *Lexer) StringOf(dst []byte, t Token) []byte {
	raw := Span{t.Start + 1, t.End - 1}.Of(l.Src)
	if !t.Quoted {
		return raw
	}
	return Unescape(dst, raw, l.Src[t.Start])
}

// Unescape appends raw, the text between two quote bytes, with MySQL's
// backslash escapes and doubled quotes undone.
func Unescape(dst, raw []byte, quote byte) []byte {
	for i := 0; i < len(raw); i++ {
		ch := raw[i]
		switch {
		case ch == '\\' && i+1 < len(raw):
			i++
			switch e := raw[i]; e {
			case 'n':
				ch = '\n'
			case 't':
				ch = '\t'
			case 'r':
				ch = '\r'
			case '0':
				ch = 0
			default:
				ch = e
			}
		case ch == quote && i+1 < len(raw) && raw[i+1] == quote:
			i++
		}
		dst = append(dst, ch)
	}
	return dst
}

// CountParams counts the placeholders of a statement: '?' tokens, not
// those in quotes or comments.
func CountParams(sql []byte) int {
	var l Lexer
	n := 0
	for l.Init(sql); l.Tok.Kind != TokEOF; l.Next() {
		if l.Tok.Kind == TokParam {
			n++
		}
	}
	return n
}

// skipQuoted returns the offset of the quote that closes the one at i (a
// backslash escapes, a doubled quote stands for itself), or the last
// offset when it is not closed.
func skipQuoted(s []byte, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(s) - 1
}

// skipSpace skips blanks and comments, entering executable comments; an
// unterminated comment runs to the end.
func skipSpace(s []byte) []byte {
	for len(s) > 0 {
		switch {
		case s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r':
			s = s[1:]
		case len(s) > 2 && s[0] == '/' && s[1] == '*' && (s[2] == '!' || s[2] == 'M' && len(s) > 3 && s[3] == '!'):
			s = s[3:]
			if len(s) > 0 && s[0] == '!' {
				s = s[1:]
			}
			for len(s) > 0 && isDigit(s[0]) {
				s = s[1:] // the version the contents need
			}
		case len(s) > 1 && s[0] == '*' && s[1] == '/':
			s = s[2:] // the end of an executable comment
		case len(s) > 1 && s[0] == '/' && s[1] == '*':
			end := bytes.Index(s[2:], []byte("*/"))
			if end < 0 {
				return nil
			}
			s = s[end+4:]
		case len(s) > 2 && s[0] == '-' && s[1] == '-' && (s[2] == ' ' || s[2] == '\t'), s[0] == '#':
			end := bytes.IndexByte(s, '\n')
			if end < 0 {
				return nil
			}
			s = s[end+1:]
		default:
			return s
		}
	}
	return s
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || 'A' <= upper(c) && upper(c) <= 'Z' || isDigit(c) || c >= 0x80
}

// identBytes is isIdentByte as a table, for the lexer's inner loop.
var identBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = isIdentByte(byte(c))
	}
	return t
}()

package sqlread

import "testing"

// FuzzLexer feeds the lexer and Classify arbitrary text: tokens never
// overlap, move forward and stay inside the text, and the statement's
// first word is the first token Classify saw.
func FuzzLexer(f *testing.F) {
	for _, s := range []string{"SELECT c FROM sbtest1 WHERE id=1", "select `a``b`, 'x\\'y', \"z\"\"\" from t", "/*!40101 SET x=1 */",
		"SELECT 1.5e+3, .5, 1abc, 99999999999999999999", "SHOW VARIABLES LIKE 'a%'", "(SELECT 1) UNION (SELECT @@x)", "'open",
		"/* open", "-- c\n#d\nUSE `db`;", "SELECT * FROM `mysql`.`user`", "?,?<=>!=<>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src := []byte(s)
		var l Lexer
		n := 0
		for l.Init(src); l.Tok.Kind != TokEOF; l.Next() {
			tok := l.Tok
			if tok.Start < l.PrevEnd || tok.End <= tok.Start || int(tok.End) > len(src) {
				t.Fatalf("%q: token %+v after %d", s, tok, l.PrevEnd)
			}
			if tok.Kind == TokString {
				l.StringOf(nil, tok)
			}
			if tok.Kind == TokIdent {
				l.Ident(tok)
			}
			if n++; n > len(src) {
				t.Fatalf("%q: more tokens than bytes", s)
			}
		}
		st := Classify(src)
		if st.Class != ClassEmpty && int(st.First.End) > len(src) {
			t.Fatalf("%q: first token %+v", s, st.First)
		}
		CountParams(src)
	})
}

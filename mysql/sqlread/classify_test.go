package sqlread

import "testing"

func TestClassify(t *testing.T) {
	tests := []struct {
		sql  string
		want Class
	}{
		{"SELECT c FROM sbtest1 WHERE id=1", ClassTable},
		{"select DISTINCT c from `sbtest2` where id between 1 and 5", ClassTable},
		{"(SELECT c FROM sbtest1)", ClassTable},
		{"  (select 1)", ClassExpr},
		{"/* x */select 1", ClassExpr},
		{"SELECT 'FROM x' FROM DUAL", ClassExpr},
		{"SELECT (SELECT 1 FROM t)", ClassExpr},
		{"SELECT 1 -- FROM t", ClassExpr},
		{"SELECTED", ClassSyntax},
		{"`SELECT` 1", ClassSyntax},
		{"select @@version_comment limit 1", ClassExpr},
		{"SELECT DATABASE()", ClassExpr},
		{"SELECT 1 UNION ALL SELECT 2", ClassUnion},
		{"(SELECT 1) UNION (SELECT 2)", ClassUnion},
		{"SELECT 1 FROM DUAL UNION SELECT 2", ClassUnion},
		{"SELECT (SELECT 1 UNION SELECT 2)", ClassExpr},
		{"SELECT 1 UNION SELECT c FROM sbtest1", ClassTable},
		{"SELECT * FROM mysql.user", ClassSystemTable},
		{"SELECT * FROM `information_schema`.`TABLES`", ClassSystemTable},
		{"SELECT * FROM mysql", ClassTable},
		{"show tables", ClassShow},
		{"show /*!40003 GLOBAL */ variables", ClassShow},
		{"/*!40101 SET NAMES utf8mb4 */", ClassOK},
		{"-- note\nBEGIN", ClassOK},
		{"use sbtest", ClassUse},
		{"EXPLAIN SELECT 1", ClassUnsupported},
		{"desc sbtest1", ClassUnsupported},
		{"insert into sbtest1 values (1)", ClassTable},
		{"WITH x AS (SELECT 1) SELECT 2", ClassTable},
		{"FROBNICATE", ClassSyntax},
		{";", ClassSyntax},
		{"BEGIN", ClassOK},
		{"", ClassEmpty},
		{"(", ClassEmpty},
		{"/* unterminated", ClassEmpty},
	}
	for _, tc := range tests {
		if got := Classify([]byte(tc.sql)).Class; got != tc.want {
			t.Errorf("Classify(%q) = %d, want %d", tc.sql, got, tc.want)
		}
	}
	sql := []byte("select * from `mysql`.user")
	st := Classify(sql)
	if got := string(st.Schema.Of(sql)) + "." + string(st.Table.Of(sql)); got != "mysql.user" {
		t.Errorf("system table %q, want mysql.user", got)
	}
}

func TestCountParams(t *testing.T) {
	for sql, want := range map[string]int{"SELECT ?": 1, "SELECT '?', \"?\", `?`, ?": 1, "id BETWEEN ? AND ?": 2,
		`'it\'s ?'`: 0, "SET @x = ? /* ? */ -- ?": 1, "?,?": 2} {
		if got := CountParams([]byte(sql)); got != want {
			t.Errorf("CountParams(%q) = %d, want %d", sql, got, want)
		}
	}
}

func TestLookupKeyword(t *testing.T) {
	for k, name := range keywordNames {
		if name == "" {
			continue
		}
		lower := []byte(name)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		if got := lookupKeyword([]byte(name)); got != Keyword(k) {
			t.Errorf("lookupKeyword(%q) = %d, want %d", name, got, k)
		}
		if got := lookupKeyword(lower); got != Keyword(k) {
			t.Errorf("lookupKeyword(%q) = %d, want %d", lower, got, k)
		}
		if got := lookupKeyword(append([]byte(name), 'X')); got != KwNone {
			t.Errorf("lookupKeyword(%sX) = %d, want none", name, got)
		}
	}
	for _, w := range []string{"", "c", "id", "sbtest1", "k", "pad", "SELECTS", "FRO"} {
		if got := lookupKeyword([]byte(w)); got != KwNone {
			t.Errorf("lookupKeyword(%q) = %d, want none", w, got)
		}
	}
}

func TestLexer(t *testing.T) {
	src := []byte("SELECT `a``b`, 'it''s', 12, 1.5e3, 99999999999999999999, ? <= <> != @@x /*!50000 FROM*/ t -- c\n;")
	var l Lexer
	var got []string
	for l.Init(src); l.Tok.Kind != TokEOF; l.Next() {
		got = append(got, string(l.Tok.Of(src)))
	}
	want := []string{"SELECT", "`a``b`", ",", "'it''s'", ",", "12", ",", "1.5e3", ",", "99999999999999999999", ",",
		"?", "<=", "<>", "!=", "@", "@", "x", "FROM", "t", ";"}
	if len(got) != len(want) {
		t.Fatalf("tokens %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("token %d = %q, want %q", i, got[i], want[i])
		}
	}
	l.Init(src)
	l.Next()
	if name := l.Ident(l.Tok); name != "a`b" {
		t.Errorf("Ident = %q, want a`b", name)
	}
	l.Next()
	l.Next()
	if s := l.StringOf(nil, l.Tok); string(s) != "it's" {
		t.Errorf("StringOf = %q, want it's", s)
	}
}

// TestClassifyAllocs: the point select is classified without allocating.
func TestClassifyAllocs(t *testing.T) {
	sql := []byte("SELECT c FROM sbtest1 WHERE id=42")
	if n := testing.AllocsPerRun(100, func() { Classify(sql) }); n != 0 {
		t.Errorf("%.1f allocations per Classify, want 0", n)
	}
}

func TestClassifyRoute(t *testing.T) {
	tests := []struct {
		sql  string
		want Route
	}{
		{"SELECT c FROM sbtest1 WHERE id=1", RouteRead},
		{"select sum(k) from sbtest1 where id between 1 and 100", RouteRead},
		{"SELECT 1", RouteRead},
		{"(select c from t)", RouteRead},
		{"show tables", RouteRead},
		{"SELECT c FROM sbtest1 WHERE id=1 FOR UPDATE", RouteWrite},
		{"SELECT c FROM t WHERE id=1 for share", RouteWrite},
		{"SELECT c FROM t LOCK IN SHARE MODE", RouteWrite},
		{"SELECT c INTO @x FROM t", RouteWrite},
		{"SELECT @x := 1", RouteWrite},
		{"SELECT LAST_INSERT_ID()", RouteWrite},
		{"select found_rows()", RouteWrite},
		{"SELECT GET_LOCK('a', 1)", RouteWrite},
		{"SELECT 'for update' FROM t", RouteRead},
		{"SELECT `last_insert_id`(1)", RouteRead},
		{"INSERT INTO t VALUES (1)", RouteWrite},
		{"UPDATE t SET k=k+1 WHERE id=1", RouteWrite},
		{"DELETE FROM t WHERE id=1", RouteWrite},
		{"SET autocommit=0", RouteSession},
		{"SET NAMES utf8mb4", RouteSession},
		{"use sbtest", RouteSession},
		{"BEGIN", RouteBegin},
		{"START TRANSACTION", RouteBegin},
		{"start transaction read write", RouteBegin},
		{"START TRANSACTION READ ONLY", RouteBeginReadOnly},
		{"START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY", RouteBeginReadOnly},
		{"START SLAVE", RouteWrite},
		{"COMMIT", RouteEnd},
		{"ROLLBACK", RouteEnd},
		{"ROLLBACK WORK", RouteEnd},
		{"ROLLBACK TO SAVEPOINT a", RouteWrite},
		{"", RouteWrite},
		{"CREATE TABLE t (a INT)", RouteWrite},
	}
	for _, tc := range tests {
		if got := Classify([]byte(tc.sql)).Route; got != tc.want {
			t.Errorf("Classify(%q).Route = %d, want %d", tc.sql, got, tc.want)
		}
	}
}

// TestClassifyRouteNoAllocs: the router classifies every statement; the
// point select must cost no allocation.
func TestClassifyRouteNoAllocs(t *testing.T) {
	for _, sql := range [][]byte{[]byte("SELECT c FROM sbtest1 WHERE id=?"), []byte("START TRANSACTION READ ONLY"), []byte("SELECT LAST_INSERT_ID()")} {
		if avg := testing.AllocsPerRun(100, func() { Classify(sql) }); avg != 0 {
			t.Errorf("Classify(%q): %.1f allocations", sql, avg)
		}
	}
}

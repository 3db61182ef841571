package mock

import (
	"bytes"
)

// queryKind is how the mock answers a statement.
type queryKind uint8

const (
	kindOK          queryKind = iota // BEGIN, COMMIT, SET, DML...: OK
	kindTable                        // SELECT, UPDATE, DELETE, INSERT on a table: tableparse.go
	kindExpr                         // SELECT without a table: evaluated (expr.go)
	kindShow                         // SHOW ...: show.go
	kindUse                          // USE db: OK, and the schema changes
	kindEmpty                        // nothing but blanks and comments: ERR 1065
	kindSystemTable                  // a table of mysql, sys, information_schema...: ERR 1146
	kindUnsupported                  // a statement mysqld knows and the mock does not run: ERR 1235
	kindSyntax                       // not a statement: ERR 1064
)

// classifyQuery looks at the first keyword and, for SELECT, whether a FROM
// names a table, without allocating: the point-select path goes through
// here on every request.
func classifyQuery(sql []byte) queryKind {
	sql = skipSpaceAndComments(sql)
	switch {
	case len(sql) == 0:
		return kindEmpty
	case hasKeyword(sql, "SELECT"):
		from := findFrom(sql)
		if from < 0 {
			return kindExpr
		}
		table := skipSpaceAndComments(sql[from+len("FROM"):])
		switch {
		case hasKeyword(table, "DUAL"):
			return kindExpr
		case isSystemTable(table):
			return kindSystemTable
		}
		return kindTable
	case hasKeyword(sql, "INSERT"), hasKeyword(sql, "UPDATE"), hasKeyword(sql, "DELETE"), hasKeyword(sql, "REPLACE"):
		return kindTable
	case hasKeyword(sql, "WITH"), hasKeyword(sql, "VALUES"), hasKeyword(sql, "TABLE"):
		// Statements the table dialect does not take: a syntax error.
		return kindTable
	case hasKeyword(sql, "SHOW"):
		return kindShow
	case hasKeyword(sql, "USE"):
		return kindUse
	}
	for _, kw := range okKeywords {
		if hasKeyword(sql, kw) {
			return kindOK
		}
	}
	for _, kw := range unsupportedKeywords {
		if hasKeyword(sql, kw) {
			return kindUnsupported
		}
	}
	return kindSyntax
}

// okKeywords start statements that the mock acknowledges with OK: they
// change nothing a benchmark reads back (sysbench's prepare and cleanup,
// transactions, session settings). Writes to rows are answered from the
// tables (tablewrite.go).
var okKeywords = []string{
	"BEGIN", "COMMIT", "ROLLBACK", "START", "SET", "SAVEPOINT", "RELEASE", "XA",
	"DO", "LOCK", "UNLOCK", "FLUSH",
	"CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME", "ANALYZE", "OPTIMIZE",
	"GRANT", "REVOKE", "KILL", "RESET",
}

// unsupportedKeywords start statements mysqld runs and the mock does not;
// they get ER_NOT_SUPPORTED_YET rather than a made-up answer.
var unsupportedKeywords = []string{
	"EXPLAIN", "DESCRIBE", "DESC", "CALL", "HANDLER", "LOAD", "PREPARE",
	"EXECUTE", "DEALLOCATE", "HELP", "CHECK", "CHECKSUM", "REPAIR", "INSTALL",
	"UNINSTALL", "IMPORT", "CHANGE", "PURGE", "BINLOG", "CACHE", "SHUTDOWN",
	"RESTART", "CLONE", "GET", "SIGNAL", "RESIGNAL",
}

// systemSchemas hold tables every mysqld has and the mock does not.
var systemSchemas = []string{"MYSQL", "SYS", "INFORMATION_SCHEMA", "PERFORMANCE_SCHEMA"}

// isSystemTable reports whether s starts with schema.table for one of the
// system schemas, quoted or not.
func isSystemTable(s []byte) bool {
	if len(s) > 0 && s[0] == '`' {
		s = s[1:]
	}
	for _, schema := range systemSchemas {
		if len(s) > len(schema) && hasKeyword(s, schema) {
			rest := s[len(schema):]
			if rest[0] == '`' {
				rest = rest[1:]
			}
			if len(rest) > 0 && rest[0] == '.' {
				return true
			}
		}
	}
	return false
}

// findFrom returns the offset of the FROM keyword at the top level of a
// SELECT (outside quotes, comments and parentheses), or -1.
func findFrom(sql []byte) int { return findTopKeyword(sql, "FROM") }

// findTopKeyword returns the offset of the keyword kw (upper case) at the
// top level of a statement (outside quotes, comments and parentheses), or
// -1.
func findTopKeyword(sql []byte, kw string) int {
	depth := 0
	for i := 0; i < len(sql); i++ {
		switch ch := sql[i]; ch {
		case '\'', '"', '`':
			i = skipQuoted(sql, i)
		case '(':
			depth++
		case ')':
			depth--
		case '/':
			if i+1 < len(sql) && sql[i+1] == '*' {
				end := bytes.Index(sql[i+2:], []byte("*/"))
				if end < 0 {
					return -1
				}
				i += end + 3
			}
		default:
			if upper(ch) == kw[0] && depth == 0 && (i == 0 || !isIdentByte(sql[i-1])) && hasKeyword(sql[i:], kw) {
				return i
			}
		}
	}
	return -1
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

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || 'A' <= upper(c) && upper(c) <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// skipSpaceAndComments skips blanks, '(' and comments. An executable
// comment (/*! ... */, /*M! ... */) is MySQL syntax its server runs: its
// opening is skipped and its contents kept.
func skipSpaceAndComments(s []byte) []byte { return skipSpace(s, true) }

// skipSpace is skipSpaceAndComments, skipping '(' only when parens is set.
func skipSpace(s []byte, parens bool) []byte {
	for len(s) > 0 {
		switch {
		case s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' || parens && s[0] == '(':
			s = s[1:]
		case len(s) > 2 && s[0] == '/' && s[1] == '*' && (s[2] == '!' || s[2] == 'M' && len(s) > 3 && s[3] == '!'):
			s = s[3:]
			if len(s) > 0 && s[0] == '!' {
				s = s[1:]
			}
			for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
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

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// hasKeyword reports whether s starts with the upper-case word kw followed
// by a non-identifier byte.
func hasKeyword(s []byte, kw string) bool {
	if len(s) < len(kw) {
		return false
	}
	for i := range len(kw) {
		if upper(s[i]) != kw[i] {
			return false
		}
	}
	return len(s) == len(kw) || !isIdentByte(s[len(kw)])
}

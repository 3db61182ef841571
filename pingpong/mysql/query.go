package mysql

import (
	"bytes"
)

// queryKind is how the mock answers a statement.
type queryKind uint8

const (
	kindOK       queryKind = iota // BEGIN, COMMIT, SET, USE, DML...: OK
	kindSelect                    // the canned c result set
	kindSysVar                    // SELECT @@var[, ...]: one row of variable values
	kindDatabase                  // SELECT DATABASE()
	kindShow                      // SHOW ...: an empty result set of a sane shape
	kindEmpty                     // nothing but blanks and comments: ERR 1065
)

// classifyQuery looks at the first keyword only, without allocating: the
// point-select path goes through here on every request.
func classifyQuery(sql []byte) queryKind {
	sql = skipSpaceAndComments(sql)
	switch {
	case len(sql) == 0:
		return kindEmpty
	case hasKeyword(sql, "SELECT"):
		if bytes.IndexByte(sql, '@') >= 0 && indexFold(sql, "@@") >= 0 {
			return kindSysVar
		}
		if indexFold(sql, "DATABASE()") >= 0 || indexFold(sql, "SCHEMA()") >= 0 {
			return kindDatabase
		}
		return kindSelect
	case hasKeyword(sql, "SHOW"):
		return kindShow
	case hasKeyword(sql, "WITH"), hasKeyword(sql, "VALUES"), hasKeyword(sql, "TABLE"):
		return kindSelect
	}
	return kindOK
}

func skipSpaceAndComments(s []byte) []byte {
	for len(s) > 0 {
		switch {
		case s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' || s[0] == '(':
			s = s[1:]
		case len(s) > 1 && s[0] == '/' && s[1] == '*':
			end := bytes.Index(s[2:], []byte("*/"))
			if end < 0 {
				return nil
			}
			s = s[end+4:]
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
	if len(s) == len(kw) {
		return true
	}
	c := s[len(kw)]
	return !(c == '_' || 'A' <= upper(c) && upper(c) <= 'Z' || '0' <= c && c <= '9')
}

// indexFold is a case-insensitive bytes.Index for an upper-case pattern.
func indexFold(s []byte, pat string) int {
	for i := 0; i+len(pat) <= len(s); i++ {
		j := 0
		for j < len(pat) && upper(s[i+j]) == pat[j] {
			j++
		}
		if j == len(pat) {
			return i
		}
	}
	return -1
}

// sysVars are the values connectors read at connect time.
var sysVars = map[string]string{
	"VERSION_COMMENT":          "hoplat mock mysqld",
	"MAX_ALLOWED_PACKET":       "16777216",
	"AUTO_INCREMENT_INCREMENT": "1",
	"AUTOCOMMIT":               "1",
	"TX_ISOLATION":             "REPEATABLE-READ",
	"TRANSACTION_ISOLATION":    "REPEATABLE-READ",
	"TX_READ_ONLY":             "0",
	"TRANSACTION_READ_ONLY":    "0",
	"CHARACTER_SET_CLIENT":     "utf8mb4",
	"CHARACTER_SET_CONNECTION": "utf8mb4",
	"CHARACTER_SET_RESULTS":    "utf8mb4",
	"CHARACTER_SET_SERVER":     "utf8mb4",
	"COLLATION_SERVER":         "utf8mb4_general_ci",
	"COLLATION_CONNECTION":     "utf8mb4_general_ci",
	"SQL_MODE":                 "STRICT_TRANS_TABLES",
	"TIME_ZONE":                "SYSTEM",
	"SYSTEM_TIME_ZONE":         "UTC",
	"WAIT_TIMEOUT":             "28800",
	"INTERACTIVE_TIMEOUT":      "28800",
	"LOWER_CASE_TABLE_NAMES":   "0",
	"NET_WRITE_TIMEOUT":        "60",
	"PERFORMANCE_SCHEMA":       "0",
	"QUERY_CACHE_SIZE":         "0",
	"QUERY_CACHE_TYPE":         "OFF",
	"LICENSE":                  "GPL",
	"INIT_CONNECT":             "",
}

// selectList splits "SELECT a, b AS x LIMIT 1" into its expressions and
// the names their columns carry.
func selectList(sql []byte) (exprs, names []string) {
	sql = skipSpaceAndComments(sql)
	sql = bytes.TrimSpace(sql[len("SELECT"):])
	for _, stop := range []string{" LIMIT ", " FROM ", ";"} {
		if i := indexFold(sql, stop); i >= 0 {
			sql = sql[:i]
		}
	}
	for _, item := range bytes.Split(sql, []byte(",")) {
		item = bytes.TrimSpace(item)
		name := item
		if i := indexFold(item, " AS "); i >= 0 {
			name = bytes.Trim(bytes.TrimSpace(item[i+4:]), "`'\"")
			item = bytes.TrimSpace(item[:i])
		}
		exprs = append(exprs, string(item))
		names = append(names, string(name))
	}
	return exprs, names
}

func sysVarValue(expr string, version string) string {
	v := bytes.ToUpper([]byte(expr))
	v = bytes.TrimPrefix(v, []byte("@@"))
	for _, scope := range []string{"SESSION.", "GLOBAL.", "LOCAL."} {
		v = bytes.TrimPrefix(v, []byte(scope))
	}
	if string(v) == "VERSION" {
		return version
	}
	return sysVars[string(v)]
}

// metadataQuery answers the queries connectors and the mariadb client send
// around a session — system variables, DATABASE(), SHOW — with a text result
// set of a plausible shape. It is off the hot path and may allocate.
func (c *serverConn) metadataQuery(kind queryKind, sql []byte) error {
	var names []string
	var rows [][]*string
	switch kind {
	case kindSysVar:
		exprs, ns := selectList(sql)
		names = ns
		row := make([]*string, len(exprs))
		for i, e := range exprs {
			v := e
			if bytes.HasPrefix([]byte(e), []byte("@@")) {
				v = sysVarValue(e, c.s.cfg.Version)
			}
			row[i] = &v
		}
		rows = [][]*string{row}
	case kindDatabase:
		_, names = selectList(sql)
		row := make([]*string, len(names))
		if c.db != "" {
			db := c.db
			row[0] = &db
		}
		rows = [][]*string{row}
	case kindShow:
		rest := skipSpaceAndComments(sql)[len("SHOW"):]
		rest = bytes.TrimSpace(rest)
		switch {
		case hasKeyword(rest, "WARNINGS"), hasKeyword(rest, "ERRORS"):
			names = []string{"Level", "Code", "Message"}
		case hasKeyword(rest, "DATABASES"), hasKeyword(rest, "SCHEMAS"):
			names = []string{"Database"}
			if c.db != "" {
				db := c.db
				rows = [][]*string{{&db}}
			}
		case hasKeyword(rest, "TABLES"):
			names = []string{"Tables_in_" + c.db}
		default:
			names = []string{"Variable_name", "Value"}
		}
	}
	return c.writeTextResult(names, rows)
}

// writeTextResult writes a text result set of VAR_STRING columns; a nil
// value is NULL.
func (c *serverConn) writeTextResult(names []string, rows [][]*string) error {
	pc := c.pc
	pc.end(appendLenEncInt(pc.begin(), uint64(len(names))))
	for _, n := range names {
		col := columnDef{name: []byte(n), orgName: []byte(n), charset: clientCharsetUTF8MB4, length: 1024, colType: typeVarString}
		pc.end(appendColumnDef(pc.begin(), &col))
	}
	if !c.deprecateEOF {
		pc.end(appendEOF(pc.begin(), serverStatusAutocommit))
	}
	for _, row := range rows {
		b := pc.begin()
		for _, v := range row {
			if v == nil {
				b = append(b, lenencNull)
			} else {
				b = appendLenEncString(b, *v)
			}
		}
		pc.end(b)
	}
	endResultSet(pc, c.deprecateEOF)
	return pc.flush()
}

package mock

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// result is a text result set as the test reads it.
type result struct {
	cols []wire.ColumnDef
	rows [][]*string
}

func (r *result) cell(row, col int) string {
	if row >= len(r.rows) || col >= len(r.rows[row]) || r.rows[row][col] == nil {
		return "NULL"
	}
	return *r.rows[row][col]
}

// queryResult sends sql and reads the whole answer: a result set, or the
// server's error.
func queryResult(t testing.TB, c *mysql.Client, sql string) (*result, error) {
	t.Helper()
	c.Conn().ResetSeq()
	c.Conn().End(append(append(c.Conn().Begin(), wire.ComQuery), sql...))
	if err := c.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	p, err := c.Conn().ReadPacket()
	if err != nil {
		t.Fatal(err)
	}
	switch p[0] {
	case wire.HeaderErr:
		return nil, wire.ParseErr(p)
	case wire.HeaderOK:
		return &result{}, nil
	}
	d := wire.Decoder{B: p, What: "column count"}
	n, _ := d.LenEncInt("column count")
	r := &result{}
	for range n {
		p, err := c.Conn().ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		col, err := wire.ParseColumnDef(p)
		if err != nil {
			t.Fatal(err)
		}
		col.Name = append([]byte(nil), col.Name...)
		r.cols = append(r.cols, col)
	}
	if !c.DeprecateEOF() {
		if p, err = c.Conn().ReadPacket(); err != nil || !wire.IsTerminator(p) {
			t.Fatalf("after columns: %x, %v", p, err)
		}
	}
	for {
		p, err := c.Conn().ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		if wire.IsTerminator(p) {
			return r, nil
		}
		if p[0] == wire.HeaderErr {
			return nil, wire.ParseErr(p)
		}
		d := wire.Decoder{B: p, What: "row"}
		var row []*string
		for range n {
			v, null := d.LenEncBytes("value")
			if null {
				row = append(row, nil)
			} else {
				s := string(v)
				row = append(row, &s)
			}
		}
		if d.Err != nil {
			t.Fatal(d.Err)
		}
		r.rows = append(r.rows, row)
	}
}

// exprTests are SELECTs without a table, each with the column name, value
// and type the mock gives it greeting as MySQL (its default version).
// TestExpressionsLikeMariaDB sends every one of them, and the statements
// below, to a real MariaDB as well.
var exprTests = []struct {
	sql, name, value string
	colType          uint8
}{
	{"SELECT 1", "1", "1", wire.TypeLongLong},
	{"select 1+1", "1+1", "2", wire.TypeLongLong},
	{"SELECT 2 * (3 - 1) AS n", "n", "4", wire.TypeLongLong},
	{"SELECT 7 DIV 2, 7 % 2", "7 DIV 2", "3", wire.TypeLongLong},
	{"SELECT 1/4", "1/4", "0.2500", wire.TypeNewDecimal},
	{"SELECT 1.5", "1.5", "1.5", wire.TypeNewDecimal},
	{"SELECT -3", "-3", "-3", wire.TypeLongLong},
	{"SELECT 'x'", "x", "x", wire.TypeVarString},
	{`SELECT "it's"`, "it's", "it's", wire.TypeVarString},
	{"SELECT NULL", "NULL", "NULL", wire.TypeNull},
	{"SELECT 1 = 1", "1 = 1", "1", wire.TypeLongLong},
	{"SELECT @@version_comment LIMIT 1", "@@version_comment", "hoplat mock mysqld", wire.TypeVarString},
	{"SELECT @@session.autocommit", "@@session.autocommit", "1", wire.TypeLongLong},
	{"SELECT @@GLOBAL.read_only", "@@GLOBAL.read_only", "0", wire.TypeLongLong},
	{"SELECT @@max_allowed_packet", "@@max_allowed_packet", "1048576", wire.TypeLongLong},
	{"SELECT @@transaction_isolation", "@@transaction_isolation", "REPEATABLE-READ", wire.TypeVarString},
	{"SELECT @@tx_isolation", "@@tx_isolation", "REPEATABLE-READ", wire.TypeVarString},
	{"SELECT @@character_set_client", "@@character_set_client", "utf8mb4", wire.TypeVarString},
	{"SELECT @@collation_connection", "@@collation_connection", "utf8mb4_general_ci", wire.TypeVarString},
	{"SELECT @@wait_timeout", "@@wait_timeout", "28800", wire.TypeLongLong},
	{"SELECT @@version", "@@version", "8.0.36-hoplat", wire.TypeVarString},
	{"SELECT VERSION()", "VERSION()", "8.0.36-hoplat", wire.TypeVarString},
	{"SELECT DATABASE()", "DATABASE()", "sbtest", wire.TypeVarString},
	{"SELECT USER()", "USER()", "u@127.0.0.1", wire.TypeVarString},
	{"SELECT CURRENT_USER()", "CURRENT_USER()", "u@%", wire.TypeVarString},
	{"SELECT @nope", "@nope", "NULL", wire.TypeNull},
	{"(SELECT 1) ;", "1", "1", wire.TypeLongLong},
	{"SELECT 1 FROM DUAL", "1", "1", wire.TypeLongLong},
	{"/*!40101 SELECT 5 */", "5", "5", wire.TypeLongLong},
	{"SELECT 3 -- FROM nowhere", "3", "3", wire.TypeLongLong},
	{"(SELECT 1) UNION (SELECT 1)", "1", "1", wire.TypeLongLong},
	{"SELECT TRUE, FALSE", "TRUE", "1", wire.TypeLongLong},
	{"SELECT NOT 0", "NOT 0", "1", wire.TypeLongLong},
	{"SELECT COALESCE(NULL, 7)", "COALESCE(NULL, 7)", "7", wire.TypeLongLong},
	{"SELECT 12345 * 12345", "12345 * 12345", "152399025", wire.TypeLongLong},
}

// exprLimit0, exprNow, exprVarying and exprPrepared are the expression
// statements whose values vary (the connection, the time, the server) or
// that run prepared.
const (
	exprLimit0 = "SELECT CONNECTION_ID(), NOW(), 1 LIMIT 0"
	exprNow    = "SELECT CONNECTION_ID() AS id, NOW()"
)

var (
	exprVarying  = []string{exprLimit0, exprNow, "SELECT CURDATE(), UNIX_TIMESTAMP(), LAST_INSERT_ID(), ROW_COUNT(), FOUND_ROWS()"}
	exprPrepared = []string{"SELECT 1, 'x', NULL, 2.5, @@max_allowed_packet", "SELECT NOW(), CONNECTION_ID(), DATABASE(), CURDATE()"}
)

// TestServerExpressions: SELECTs without a table get the values and the
// column types mysqld gives them, over both result-set shapes.
func TestServerExpressions(t *testing.T) {
	cfg := ServerConfig{User: "u", Password: "p", Rows: 3, MaxAllowedPacket: 1 << 20}
	for _, deprecateEOF := range []bool{true, false} {
		// Without DEPRECATE_EOF in the greeting, both ends use classic EOF
		// packets, as libmariadb does.
		m := mysqltest.StartMock(t, NewServer, cfg, func(s *Server) {
			if !deprecateEOF {
				s.caps &^= wire.CapDeprecateEOF
			}
		})
		c := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{User: "u", Password: "p", DB: "sbtest"})
		if c.DeprecateEOF() != deprecateEOF {
			t.Fatalf("DEPRECATE_EOF negotiated %v, want %v", c.DeprecateEOF(), deprecateEOF)
		}
		for _, tc := range exprTests {
			r, err := queryResult(t, c, tc.sql)
			if err != nil {
				t.Errorf("%q: %v", tc.sql, err)
				continue
			}
			if len(r.cols) == 0 || len(r.rows) != 1 {
				t.Errorf("%q: %d columns, %d rows; want a row", tc.sql, len(r.cols), len(r.rows))
				continue
			}
			if got := string(r.cols[0].Name); got != tc.name || r.cell(0, 0) != tc.value || r.cols[0].ColType != tc.colType {
				t.Errorf("%q: column %q type 0x%02x value %q; want %q 0x%02x %q", tc.sql, got, r.cols[0].ColType, r.cell(0, 0), tc.name, tc.colType, tc.value)
			}
			if tc.colType == wire.TypeLongLong && r.cols[0].Charset != 63 {
				t.Errorf("%q: integer column in charset %d, want 63 (binary)", tc.sql, r.cols[0].Charset)
			}
		}
		r, err := queryResult(t, c, exprLimit0)
		if err != nil || len(r.cols) != 3 || len(r.rows) != 0 || r.cols[1].ColType != wire.TypeDateTime {
			t.Errorf("LIMIT 0: %+v, %v", r, err)
		}
		before := time.Now().Add(-time.Second)
		r, err = queryResult(t, c, exprNow)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := strconv.Atoi(r.cell(0, 0)); err != nil || id < 1 {
			t.Errorf("CONNECTION_ID() = %q", r.cell(0, 0))
		}
		if now, err := time.ParseInLocation(time.DateTime, r.cell(0, 1), time.Local); err != nil || now.Before(before) || now.After(time.Now().Add(time.Second)) {
			t.Errorf("NOW() = %q, %v", r.cell(0, 1), err)
		}
		// Prepared, the same values travel in the binary protocol, checked
		// against the column types the prepare announced.
		for _, sql := range exprPrepared {
			st, err := c.Prepare(sql)
			if err != nil {
				t.Fatalf("prepare %q: %v", sql, err)
			}
			for range 2 {
				if n, err := st.Exec(); err != nil || n != 1 {
					t.Fatalf("execute %q: %d rows, %v", sql, n, err)
				}
			}
		}
		if r, err := queryResult(t, c, "SELECT c FROM sbtest1 WHERE id=7"); err != nil || len(r.rows) != 3 || string(r.cols[0].Name) != "c" {
			t.Errorf("a table's canned rows: %+v, %v", r, err)
		}
	}
}

// TestServerRefusals: what the mock does not run gets the error mysqld
// sends, and the connection stays usable.
func TestServerRefusals(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p"})
	c := mysqltest.MustDial(t, mysql.Connect, "unix", m.Sock, mysql.ClientConfig{User: "u", Password: "p", DB: "sbtest"})
	tests := []struct {
		sql  string
		code uint16
		msg  string
	}{
		{"SELEC 1", wire.ErParse, "near 'SELEC 1' at line 1"},
		{"SELECT 1 +", wire.ErParse, "syntax"},
		{"SELECT 'unterminated", wire.ErParse, "syntax"},
		{"SELECT @@no_such_var", wire.ErUnknownSystemVariable, "Unknown system variable 'no_such_var'"},
		{"SELECT frob(1)", wire.ErFunctionNotDefined, "FUNCTION sbtest.frob does not exist"},
		{"SELECT nosuchcolumn", 1054, "Unknown column 'nosuchcolumn'"},
		{"SELECT * FROM mysql.user", wire.ErNoSuchTable, "Table 'mysql.user' doesn't exist"},
		{"EXPLAIN SELECT 1", wire.ErNotSupportedYet, "EXPLAIN"},
		{"SHOW PROCESSLIST", wire.ErNotSupportedYet, "SHOW PROCESSLIST"},
		{"SHOW NONSENSE", wire.ErParse, "NONSENSE"},
		{"USE", wire.ErParse, "syntax"},
		{"USE sbtest junk", wire.ErParse, "near 'junk' at line 1"},
		{"SELECT 1 x y UNION SELECT 2", wire.ErParse, "near 'y UNION SELECT 2' at line 1"},
		{"SELECT 1 UNION SELECT 1, 2", 1222, "different number of columns"},
		{"(SELECT 1 UNION SELECT 2)", wire.ErParse, "near 'UNION SELECT 2)' at line 1"},
		{"SELECT 1e3", wire.ErParse, "near '1e3' at line 1"},
		{"SELECT c /* FROM x */ FROM nope", wire.ErNoSuchTable, "Table 'sbtest.nope' doesn't exist"},
		{";", wire.ErParse, "syntax"},
	}
	for _, tc := range tests {
		_, err := queryResult(t, c, tc.sql)
		se := mysqltest.AsServerError(err)
		if se == nil || se.Code != tc.code || !strings.Contains(se.Message, tc.msg) {
			t.Errorf("%q: %v; want ERR %d containing %q", tc.sql, err, tc.code, tc.msg)
		}
		if err := c.Ping(); err != nil {
			t.Fatalf("after %q: %v", tc.sql, err)
		}
	}
	if _, err := c.Prepare("SELECT ?"); mysqltest.AsServerError(err) == nil || mysqltest.AsServerError(err).Code != wire.ErUnsupportedPS {
		t.Errorf("prepare SELECT ?: %v; want ERR %d", err, wire.ErUnsupportedPS)
	}
}

// TestServerShow covers the SHOW statements clients and admin tools send.
func TestServerShow(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p", MaxAllowedPacket: 4 << 20})
	c := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{User: "u", Password: "p", DB: "bench"})
	r, err := queryResult(t, c, "SHOW VARIABLES")
	if err != nil || len(r.rows) < 40 {
		t.Fatalf("SHOW VARIABLES: %d rows, %v", len(r.rows), err)
	}
	vars := map[string]string{}
	for i := range r.rows {
		vars[r.cell(i, 0)] = r.cell(i, 1)
	}
	if vars["max_allowed_packet"] != "4194304" || vars["autocommit"] != "1" || vars["version"] != "8.0.36-hoplat" {
		t.Errorf("SHOW VARIABLES: %v", vars)
	}
	for sql, want := range map[string]string{
		"SHOW SESSION VARIABLES LIKE 'max_allowed%'":            "max_allowed_packet=4194304",
		"show /*!40003 GLOBAL */ variables like 'WAIT_T_MEOUT'": "wait_timeout=28800",
		"SHOW GLOBAL STATUS LIKE 'Uptime'":                      "Uptime=",
		"SHOW DATABASES":                                        "bench information_schema sbtest",
		"SHOW DATABASES LIKE 'sb%'":                             "sbtest",
		"SHOW WARNINGS":                                         "",
		"SHOW ERRORS":                                           "",
	} {
		r, err := queryResult(t, c, sql)
		if err != nil {
			t.Errorf("%q: %v", sql, err)
			continue
		}
		var got []string
		for i := range r.rows {
			if len(r.cols) == 2 {
				got = append(got, r.cell(i, 0)+"="+r.cell(i, 1))
			} else {
				got = append(got, r.cell(i, 0))
			}
		}
		if s := strings.Join(got, " "); !strings.HasPrefix(s, want) || want == "" && s != "" {
			t.Errorf("%q: %q, want %q", sql, s, want)
		}
	}
	if r, _ := queryResult(t, c, "SHOW WARNINGS"); len(r.cols) != 3 || string(r.cols[1].Name) != "Code" {
		t.Errorf("SHOW WARNINGS columns: %+v", r)
	}
}

package mock

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// literalShapes are SELECTs without a table whose column definitions a
// driver reads to pick a Go type and a display width: SLEEP(), UNIONs
// (alike and mixed kinds, NULL parts) and bare literals.
var literalShapes = []string{
	"SELECT SLEEP(0)",
	"SELECT SLEEP(NULL)",
	"SELECT SLEEP(0) UNION SELECT 1",
	"SELECT 1 UNION SELECT 2",
	"SELECT 1 UNION SELECT 2 UNION SELECT 3",
	"SELECT -123 UNION SELECT 1",
	"SELECT 1 UNION SELECT 'a'",
	"SELECT 'a' UNION SELECT 1",
	"SELECT -1 UNION SELECT 'xy'",
	"SELECT 1 UNION ALL SELECT 1.5 UNION SELECT 'abc'",
	"SELECT 1.5 UNION SELECT 2",
	"SELECT 1.5 UNION SELECT -10.25",
	"SELECT 1234567890 UNION SELECT 1",
	"SELECT NULL UNION SELECT 1",
	"SELECT 1 UNION SELECT NULL",
	"SELECT NULL UNION SELECT 'a'",
	"SELECT NULL UNION SELECT NULL",
	"SELECT 'ab' AS x UNION SELECT 'abcd'",
	"SELECT 1",
	"SELECT -1",
	"SELECT 00001",
	"SELECT 999999999",
	"SELECT 1234567890",
	"SELECT -123456789",
	"SELECT 12345678901234567890",
	"SELECT 'a'",
	"SELECT ''",
	"SELECT 'é'",
	"SELECT 1.5",
	"SELECT .5",
	"SELECT 0.05",
	"SELECT -1.50",
	"SELECT NULL",
	"SELECT 1 AS a, 'x' AS b, 2.5 AS c, NULL AS d",
}

// colAttrs is everything a column definition says about a column apart
// from the table it comes from.
func colAttrs(r *result) []string {
	var out []string
	for i, c := range r.cols {
		var vals []string
		for row := range r.rows {
			vals = append(vals, r.cell(row, i))
		}
		out = append(out, fmt.Sprintf("%s: type %d charset %d length %d decimals %d flags %#x values %q",
			c.Name, c.ColType, c.Charset, c.Length, c.Decimals, c.Flags, vals))
	}
	return out
}

// TestLiteralShapesLikeMariaDB asks a real MariaDB and the mock, greeting
// as MariaDB, for literalShapes and requires the same column definitions
// (type, charset, length, decimals, flags) and values.
func TestLiteralShapesLikeMariaDB(t *testing.T) {
	db := mariadbtest.Shared(t)
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p", Version: "10.11.0-MariaDB-hoplat"})
	real := mysqltest.MustDial(t, mysql.Connect, "tcp", db.Addr, mysql.ClientConfig{User: db.User, Password: db.Password, DB: db.DB})
	mock := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{User: "u", Password: "p", DB: "sbtest"})
	for _, sql := range literalShapes {
		want, err := queryResult(t, real, sql)
		if err != nil {
			t.Fatalf("%s: mariadb: %v", sql, err)
		}
		got, err := queryResult(t, mock, sql)
		if err != nil {
			t.Errorf("%s: mock: %v", sql, err)
			continue
		}
		if w, g := colAttrs(want), colAttrs(got); !slices.Equal(w, g) {
			t.Errorf("%s\n  mariadb: %q\n  mock:    %q", sql, w, g)
		}
	}
}

// exprShape is what TestExpressionsLikeMariaDB compares: the column count,
// each column's type, and the row count.
func exprShape(r *result) string {
	types := make([]uint8, len(r.cols))
	for i, c := range r.cols {
		types[i] = c.ColType
	}
	return fmt.Sprintf("%d columns, types %v, %d rows", len(r.cols), types, len(r.rows))
}

// TestExpressionsLikeMariaDB sends every statement of the mock's own
// expression table (exprTests, exprVarying and exprPrepared) to a real
// MariaDB and to the mock greeting as MariaDB, and requires the same
// column count, column types and row count; the prepared ones also with
// the types their prepare announced and their binary rows.
func TestExpressionsLikeMariaDB(t *testing.T) {
	db := mariadbtest.Shared(t)
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p", Version: "10.11.0-MariaDB-hoplat"})
	real := mysqltest.MustDial(t, mysql.Connect, "tcp", db.Addr, mysql.ClientConfig{User: db.User, Password: db.Password, DB: db.DB})
	mock := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{User: "u", Password: "p", DB: "sbtest"})
	statements := slices.Clone(exprVarying)
	for _, tc := range exprTests {
		statements = append(statements, tc.sql)
	}
	for _, sql := range append(statements, exprPrepared...) {
		want, err := queryResult(t, real, sql)
		if se := mysqltest.AsServerError(err); se != nil && se.Code == wire.ErUnknownSystemVariable && strings.Contains(sql, "@@transaction_isolation") {
			// MariaDB names it so from 11.1 only; the mock answers MySQL's
			// names and MariaDB's alike.
			t.Logf("%s: %v (MariaDB before 11.1)", sql, err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: mariadb: %v", sql, err)
		}
		got, err := queryResult(t, mock, sql)
		if err != nil {
			t.Errorf("%s: mock: %v", sql, err)
			continue
		}
		if w, g := exprShape(want), exprShape(got); w != g {
			t.Errorf("%s\n  mariadb: %s\n  mock:    %s", sql, w, g)
		}
	}
	for _, sql := range exprPrepared {
		want, got := describe(t, real, sql, true), describe(t, mock, sql, true)
		if !sameShape(want, got) {
			t.Errorf("%s prepared\n  mariadb: %v %v\n  mock:    %v %v", sql, want, prepShape(want), got, prepShape(got))
		}
	}
}

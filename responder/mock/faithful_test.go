package mock

import (
	"slices"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// A corpus statement: its SQL, the arguments of its prepared form (the
// text form has them inlined), and what may differ from mysqld.
type corpusEntry struct {
	sql  string
	text string // the COM_QUERY form when it differs from sql
	args []any
	// textOnly: the mock answers it as text only (ER_UNSUPPORTED_PS when
	// prepared, which clients fall back from as sysbench does).
	textOnly bool
	// autoID: the insert id comes from AUTO_INCREMENT, whose value depends
	// on what ran on the server before; only "past the prepared rows" is
	// compared.
	autoID bool
}

// corpus is sysbench's own statements (oltp_point_select, oltp_read_only,
// oltp_read_write, oltp_write_only) and what applications and monitors
// send to a sysbench schema, with row counts that do not depend on
// sysbench's random contents. Writes come last, inside a transaction that
// is rolled back, so the shared server keeps its rows.
var corpus = []corpusEntry{
	// sysbench, as it prepares them.
	{sql: "SELECT c FROM sbtest1 WHERE id=?", text: "SELECT c FROM sbtest1 WHERE id=17", args: []any{int64(17)}},
	{sql: "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?", text: "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104", args: []any{int64(5), int64(104)}},
	{sql: "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?", text: "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 5 AND 104", args: []any{int64(5), int64(104)}},
	{sql: "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c", text: "SELECT c FROM sbtest1 WHERE id BETWEEN 9901 AND 10000 ORDER BY c", args: []any{int64(9901), int64(10000)}},
	{sql: "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c", text: "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 9950 AND 10049 ORDER BY c", args: []any{int64(9950), int64(10049)}},
	{sql: "SELECT c FROM sbtest1 WHERE id IN (?, ?, ?)", text: "SELECT c FROM sbtest1 WHERE id IN (3, 1, 3)", args: []any{int64(3), int64(1), int64(3)}},
	// Column lists, *, aggregates, ranges, IN, ORDER BY, DISTINCT, LIMIT.
	{sql: "SELECT id,k,c,pad FROM sbtest1 WHERE id BETWEEN 1 AND 5"},
	{sql: "SELECT * FROM sbtest1 WHERE id IN (3, 1, 3, 20000, 10000)"},
	{sql: "select `id`, K, Pad from `sbtest`.`sbtest1` where `id` = 3"},
	{sql: "SELECT t.id AS ident, t.k kay, c 'quoted' FROM sbtest1 AS t WHERE t.id = 7"},
	{sql: "SELECT COUNT(*) FROM sbtest1"},
	{sql: "SELECT COUNT(*) AS n FROM sbtest1 WHERE id > 9990"},
	{sql: "SELECT SUM(k), COUNT(k), MIN(id), MAX(id), AVG(k), MIN(c), MAX(pad) FROM sbtest1 WHERE id BETWEEN 1 AND 10"},
	{sql: "SELECT SUM(k), MAX(c), COUNT(*) FROM sbtest1 WHERE id BETWEEN 5 AND 1"},
	{sql: "SELECT id FROM sbtest1 WHERE id BETWEEN 10 AND 20 ORDER BY id DESC LIMIT 3"},
	{sql: "SELECT id, k FROM sbtest1 WHERE id >= 100 AND id < 110 LIMIT 2, 3"},
	{sql: "SELECT id FROM sbtest1 WHERE id <> 5 AND id <= 8 ORDER BY k, id LIMIT 4 OFFSET 1"},
	{sql: "SELECT DISTINCT id FROM sbtest1 WHERE id BETWEEN 1 AND 50"},
	{sql: "SELECT id FROM sbtest1 WHERE id NOT IN (1, 2) AND id < 6"},
	{sql: "SELECT id FROM sbtest1 WHERE id NOT BETWEEN 3 AND 9998"},
	{sql: "SELECT id FROM sbtest1 WHERE id NOT BETWEEN NULL AND 3 AND id < 10"},
	{sql: "SELECT id FROM sbtest1 WHERE id NOT IN (1, NULL) AND id < 10"},
	{sql: "SELECT id FROM sbtest1 WHERE id IN (1, NULL, 3)"},
	{sql: "SELECT COUNT(*) FROM sbtest1 WHERE k = NULL"},
	{sql: "SELECT id FROM sbtest1 WHERE id = 1 OR id = 2"},
	{sql: "SELECT id FROM sbtest1 WHERE id < 3 AND id > 1 OR id BETWEEN 8 AND 9 OR id IN (20, 9)"},
	{sql: "SELECT COUNT(*) FROM sbtest1 WHERE id = NULL OR id > 9995"},
	{sql: "SELECT c FROM sbtest1 WHERE id = ? FOR UPDATE", text: "SELECT c FROM sbtest1 WHERE id = 4 FOR UPDATE", args: []any{int64(4)}},
	{sql: "SELECT id FROM sbtest1 WHERE id = 0"},
	// Errors: unknown table, unknown column, bad syntax.
	{sql: "SELECT * FROM nonexistent"},
	{sql: "SELECT * FROM sbtest2 WHERE id=1"},
	{sql: "SELECT * FROM SBTEST1 WHERE id=1"},
	{sql: "SELECT id FROM otherdb.sbtest9"},
	{sql: "SELECT nope FROM sbtest1 WHERE id=1"},
	{sql: "SELECT id FROM sbtest1 WHERE nope = 1"},
	{sql: "SELECT id FROM sbtest1 WHERE id=1 ORDER BY nope"},
	{sql: "SELECT x.id FROM sbtest1 WHERE id=1"},
	{sql: "SELEC 1"},
	{sql: "SELECT id FROM sbtest1 WHERE"},
	{sql: "SELECT id FROM"},
	{sql: "SELECT id FROM sbtest1 WHERE id = 'unterminated"},
	{sql: "INSERT INTO sbtest1 (id, k) VALUES (1)"},
	{sql: "INSERT INTO sbtest1 (zz) VALUES (1)"},
	{sql: "UPDATE sbtest1 SET zz=1 WHERE id=1"},
	{sql: "INSERT INTO nope VALUES (1)"},
	{sql: "DELETE FROM sbtest1 WHERE nope=1"},
	// An error inside a call's argument is the answer, not the call's.
	{sql: "SELECT SUM(nope)"},
	{sql: "SELECT COALESCE(1, @@nope)"},
	{sql: "SELECT 1 + (2"},
	// What monitors and shells send.
	{sql: "SHOW TABLES", textOnly: true},
	{sql: "SHOW FULL TABLES", textOnly: true},
	{sql: "SHOW TABLES LIKE 'sbtest%'", textOnly: true},
	{sql: "SELECT SLEEP(0)"},
	{sql: "SELECT SLEEP(0.01) AS slept"},
	{sql: "SELECT 1 UNION SELECT 2", textOnly: true},
	{sql: "SELECT 1 UNION ALL SELECT 1", textOnly: true},
	{sql: "SELECT 1 UNION SELECT 1", textOnly: true},
	{sql: "SELECT 'a' AS x UNION SELECT 'b' UNION SELECT 'a'", textOnly: true},
	{sql: "SELECT 1, 2 UNION SELECT 3", textOnly: true},
	// Writes, rolled back on the server: sysbench's, then others.
	{sql: "BEGIN"},
	{sql: "UPDATE sbtest1 SET k=k+1 WHERE id=?", text: "UPDATE sbtest1 SET k=k+1 WHERE id=31", args: []any{int64(31)}},
	{sql: "UPDATE sbtest1 SET c=? WHERE id=?", text: "UPDATE sbtest1 SET c='11111111111-22222222222' WHERE id=32", args: []any{"11111111111-22222222222", int64(32)}},
	{sql: "DELETE FROM sbtest1 WHERE id=?", text: "DELETE FROM sbtest1 WHERE id=33", args: []any{int64(33)}},
	{sql: "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", text: "INSERT INTO sbtest1 (id, k, c, pad) VALUES (33, 5000, 'c-value', 'pad-value')",
		args: []any{int64(33), int64(5000), "c-value", "pad-value"}},
	{sql: "UPDATE sbtest1 SET k=k+1 WHERE id BETWEEN 1 AND 3"},
	{sql: "UPDATE sbtest1 SET k=k+1 WHERE id=99999"},
	{sql: "UPDATE sbtest1 SET k=k WHERE id=1"},
	{sql: "UPDATE sbtest1 SET k=k+1 WHERE id = 3 OR id = 9999 OR id = 99999"},
	{sql: "DELETE FROM sbtest1 WHERE id = 45 OR k = NULL"},
	{sql: "DELETE FROM sbtest1 WHERE id BETWEEN 40 AND 44"},
	{sql: "DELETE FROM sbtest1 WHERE id IN (50, 51, 99999)"},
	{sql: "INSERT INTO sbtest1 (id, k, c, pad) VALUES (60000, 1, 'x', 'y')"},
	{sql: "INSERT INTO sbtest1 (k, c, pad) VALUES (1, 'a', 'b'), (2, 'c', 'd')", autoID: true},
	{sql: "INSERT INTO sbtest1 (k) VALUES (7)", autoID: true},
	{sql: "REPLACE INTO sbtest1 (id, k, c, pad) VALUES (70000, 1, 'x', 'y')"},
	{sql: "ROLLBACK"},
}

// TestMockAnswersLikeMariaDB runs the corpus against a real MariaDB loaded
// by `sysbench prepare` and against the mock serving the same schema, in
// text and prepared mode, and requires the same shape of every answer.
func TestMockAnswersLikeMariaDB(t *testing.T) {
	db := mariadbtest.Shared(t)
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p", TableSize: int64(db.TableSize), Version: "10.11.0-MariaDB-hoplat"})
	for _, prepared := range []bool{false, true} {
		mode := "text"
		if prepared {
			mode = "prepared"
		}
		t.Run(mode, func(t *testing.T) {
			real := mysqltest.MustDial(t, mysql.Connect, "tcp", db.Addr, mysql.ClientConfig{User: db.User, Password: db.Password, DB: db.DB})
			mock := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{User: "u", Password: "p", DB: "sbtest"})
			for _, e := range corpus {
				sql, args := e.sql, e.args
				if !prepared && e.text != "" {
					sql, args = e.text, nil
				}
				if prepared && e.textOnly {
					if got := describe(t, mock, sql, true, args...); got.code != wire.ErUnsupportedPS {
						t.Errorf("%s prepared: mock answers %v, want ERR %d (text only)", sql, got, wire.ErUnsupportedPS)
					}
					continue
				}
				want := describe(t, real, sql, prepared, args...)
				got := describe(t, mock, sql, prepared, args...)
				if e.autoID && got.insertID > uint64(db.TableSize) && want.insertID > uint64(db.TableSize) {
					got.insertID = want.insertID
				}
				if !sameShape(want, got) {
					t.Errorf("%s\n  mariadb: %v %v\n  mock:    %v %v", sql, want, prepShape(want), got, prepShape(got))
				}
			}
		})
	}
}

func prepShape(s shape) string {
	if s.prepNames == nil {
		return ""
	}
	return (shape{names: s.prepNames, types: s.prepTypes}).String()
}

func sameShape(a, b shape) bool {
	return a.code == b.code && a.rows == b.rows && a.affected == b.affected && a.insertID == b.insertID &&
		slices.Equal(a.names, b.names) && slices.Equal(a.types, b.types) &&
		slices.Equal(a.prepNames, b.prepNames) && slices.Equal(a.prepTypes, b.prepTypes)
}

// TestCorpusReachesTheServer guards the comparison against answering
// everything with the same error: the corpus holds rows, OKs and each
// error it is meant to cover.
func TestCorpusCoversShapes(t *testing.T) {
	want := []string{"SELECT", "UPDATE", "DELETE", "INSERT", "SHOW TABLES", "SLEEP", "UNION", "COUNT", "SUM", "BETWEEN", "IN (", "ORDER BY", "DISTINCT", "nonexistent", "nope", "SELEC "}
	for _, w := range want {
		found := false
		for _, e := range corpus {
			found = found || strings.Contains(e.sql, w)
		}
		if !found {
			t.Errorf("corpus has no statement with %q", w)
		}
	}
}

// TestFieldListLikeMariaDB compares COM_FIELD_LIST, which the mariadb
// client sends for table-name completion, with MariaDB's answer.
func TestFieldListLikeMariaDB(t *testing.T) {
	db := mariadbtest.Shared(t)
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p", TableSize: int64(db.TableSize), Version: "10.11.0-MariaDB-hoplat"})
	real := mysqltest.MustDial(t, mysql.Connect, "tcp", db.Addr, mysql.ClientConfig{User: db.User, Password: db.Password, DB: db.DB})
	mock := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{User: "u", Password: "p", DB: "sbtest"})
	for _, table := range []string{"sbtest1", "nonexistent"} {
		want, got := fieldList(t, real, table), fieldList(t, mock, table)
		if !sameShape(want, got) {
			t.Errorf("COM_FIELD_LIST %s\n  mariadb: %v\n  mock:    %v", table, want, got)
		}
	}
}

func fieldList(t *testing.T, c *mysql.Client, table string) shape {
	t.Helper()
	c.Conn().ResetSeq()
	b := append(append(c.Conn().Begin(), wire.ComFieldList), table...)
	c.Conn().End(append(b, 0))
	if err := c.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	var s shape
	for {
		p := mustRead(t, c)
		switch {
		case p[0] == wire.HeaderErr:
			return shape{code: mysqltest.AsServerError(wire.ParseErr(p)).Code}
		case wire.IsTerminator(p):
			return s
		}
		col, err := wire.ParseColumnDef(p)
		if err != nil {
			t.Fatal(err)
		}
		s.names = append(s.names, string(col.Name))
		s.types = append(s.types, col.ColType)
	}
}

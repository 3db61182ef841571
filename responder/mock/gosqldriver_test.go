package mock

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// TestGoSQLDriverAgainstMock serves github.com/go-sql-driver/mysql, the
// driver Go programs use, through database/sql's pool: the pool's Ping and
// session reuse, SELECT 1 scanned as an integer, prepared and text
// statements, a transaction, a wrong password. The driver is a test-only
// dependency.
func TestGoSQLDriverAgainstMock(t *testing.T) {
	for _, auth := range []string{wire.PluginNative, wire.PluginCachingSHA2} {
		m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "go", Password: "pw", Auth: auth, RowBytes: 30})
		// UNIX first: caching_sha2's full authentication sends the password
		// in clear there; over TCP the driver fetches the RSA key.
		for _, tr := range [][2]string{{"unix", m.Sock}, {"tcp", m.TCPAddr}} {
			t.Run(auth+"/"+tr[0], func(t *testing.T) {
				cfg := gomysql.NewConfig()
				cfg.User, cfg.Passwd, cfg.DBName = "go", "pw", "sbtest"
				cfg.Net, cfg.Addr = tr[0], tr[1]
				cfg.Timeout = 10 * time.Second
				connector, err := gomysql.NewConnector(cfg)
				if err != nil {
					t.Fatal(err)
				}
				db := sql.OpenDB(connector)
				defer db.Close()
				db.SetMaxOpenConns(1)
				ctx := context.Background()
				if err := db.PingContext(ctx); err != nil {
					t.Fatalf("Ping: %v", err)
				}
				var n int64
				if err := db.QueryRow("SELECT 1").Scan(&n); err != nil || n != 1 {
					t.Fatalf("SELECT 1 into int64: %d, %v", n, err)
				}
				rows, err := db.Query("SELECT 1, 'x', @@max_allowed_packet, NOW()")
				if err != nil {
					t.Fatal(err)
				}
				types, err := rows.ColumnTypes()
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, ct := range types {
					names = append(names, ct.DatabaseTypeName())
				}
				if want := []string{"BIGINT", "VARCHAR", "BIGINT", "DATETIME"}; !reflect.DeepEqual(names, want) {
					t.Errorf("column types %v, want %v", names, want)
				}
				var one any
				var x string
				var maxPacket int64
				var now sql.RawBytes
				if !rows.Next() {
					t.Fatalf("no row: %v", rows.Err())
				}
				if err := rows.Scan(&one, &x, &maxPacket, &now); err != nil {
					t.Fatal(err)
				}
				rows.Close()
				if _, ok := one.(int64); !ok || x != "x" || maxPacket != DefaultMaxAllowedPacket {
					t.Errorf("scanned %#v (%T), %q, %d", one, one, x, maxPacket)
				}
				// With an argument the driver prepares: the binary protocol.
				var c string
				if err := db.QueryRow("SELECT c FROM sbtest1 WHERE id=?", 7).Scan(&c); err != nil || len(c) != 30 {
					t.Fatalf("prepared point select: %q, %v", c, err)
				}
				stmt, err := db.Prepare("SELECT 1 + 1")
				if err != nil {
					t.Fatal(err)
				}
				if err := stmt.QueryRow().Scan(&n); err != nil || n != 2 {
					t.Fatalf("prepared SELECT 1 + 1: %d, %v", n, err)
				}
				stmt.Close()
				tx, err := db.Begin()
				if err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
				// The pool hands the one connection back each time (session
				// reset on reuse) and it still answers.
				for range 3 {
					conn, err := db.Conn(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if err := conn.PingContext(ctx); err != nil {
						t.Fatal(err)
					}
					conn.Close()
				}
				if s := db.Stats(); s.OpenConnections != 1 {
					t.Errorf("pool opened %d connections for sequential use, want 1", s.OpenConnections)
				}
				var me *gomysql.MySQLError
				if _, err := db.Exec("SELECT * FROM mysql.user"); !errors.As(err, &me) || me.Number != wire.ErNoSuchTable {
					t.Errorf("system table: %v, want ERR %d", err, wire.ErNoSuchTable)
				}
				bad := *cfg
				bad.Passwd = "wrong"
				bc, _ := gomysql.NewConnector(&bad)
				bdb := sql.OpenDB(bc)
				defer bdb.Close()
				if err := bdb.Ping(); !errors.As(err, &me) || me.Number != wire.ErAccessDenied {
					t.Errorf("wrong password: %v, want ERR 1045", err)
				}
			})
		}
		if errs := m.Errors(); len(errs) > 0 {
			for _, err := range errs {
				if !errors.Is(err, ErrConnectTimeout) && !isAccessDenied(err) {
					t.Errorf("mock ended a connection with %v", err)
				}
			}
		}
	}
}

func isAccessDenied(err error) bool {
	return strings.Contains(err.Error(), "access denied")
}

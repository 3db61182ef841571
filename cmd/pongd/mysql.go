package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/responder"
	"github.com/hoplat/hoplat/responder/echo"
	"github.com/hoplat/hoplat/responder/mock"
)

// mysqlFlags shape the mock mysqld. The account defaults to sysbench's
// user and db name with the same word as password, so that `sysbench
// --mysql-password=sbtest` and `mariadb -usbtest -psbtest` log in as they
// are.
type mysqlFlags struct {
	user, password, auth string
	rows, rowBytes       int
	tables               int
	tableSize            int64
	seed                 uint64
	connectTimeout       time.Duration
	maxAllowedPacket     int
}

// names of the flags that only --proto mysql takes.
var mysqlOnly = []string{"user", "password", "auth", "rows", "row-bytes", "tables", "table-size", "seed", "connect-timeout", "max-allowed-packet"}

func addMySQLFlags(fs *pflag.FlagSet) *mysqlFlags {
	m := &mysqlFlags{}
	fs.StringVar(&m.user, "user", "sbtest", "the one account's user (sysbench's default)")
	fs.StringVar(&m.password, "password", "sbtest", "the account's password; with the defaults sysbench and mariadb -usbtest -psbtest log in")
	fs.StringVar(&m.auth, "auth", "mysql_native_password", "the account's plugin: mysql_native_password or caching_sha2_password")
	fs.IntVar(&m.tables, "tables", 1, "sysbench tables served, sbtest1..sbtestN (sysbench's --tables)")
	fs.Int64Var(&m.tableSize, "table-size", 10000, "rows per table, ids 1..N, computed when read (sysbench's --table-size)")
	fs.Uint64Var(&m.seed, "seed", 0, "seed of the tables' k, c and pad values: the same seed, the same rows")
	fs.IntVar(&m.rows, "rows", 0, "reshape the point select into N rows, to measure result size (unset: the table's row)")
	fs.IntVar(&m.rowBytes, "row-bytes", 0, "reshape the point select's c to N bytes (unset: the table's 119)")
	fs.DurationVar(&m.connectTimeout, "connect-timeout", mock.DefaultConnectTimeout, "time from accept to login before a "+
		"client is disconnected, as mysqld's connect_timeout; 0: none")
	fs.IntVar(&m.maxAllowedPacket, "max-allowed-packet", mock.DefaultMaxAllowedPacket, "largest command after login "+
		"(mysqld's max_allowed_packet); a larger one gets ERR 1153 and a close")
	return m
}

// handler builds the responder --proto names, spending svc per echo
// request or per MySQL statement.
func handler(fs *pflag.FlagSet, proto string, m *mysqlFlags, svc responder.Service) (responder.Handler, error) {
	switch proto {
	case "echo":
		for _, f := range mysqlOnly {
			if fs.Changed(f) {
				return nil, fmt.Errorf("--%s: a mysql flag; add --proto mysql", f)
			}
		}
		return echo.Handler{Service: svc}, nil
	case "mysql":
		return m.handler(fs, svc)
	}
	return nil, fmt.Errorf("--proto %q: want echo or mysql", proto)
}

func (m *mysqlFlags) handler(fs *pflag.FlagSet, svc responder.Service) (responder.Handler, error) {
	switch {
	case m.auth != "mysql_native_password" && m.auth != "caching_sha2_password":
		return nil, fmt.Errorf("--auth %q: want mysql_native_password or caching_sha2_password", m.auth)
	case fs.Changed("rows") && m.rows < 1:
		return nil, fmt.Errorf("--rows %d: want at least 1 (leave it out for the table's rows)", m.rows)
	case fs.Changed("row-bytes") && m.rowBytes < 1:
		return nil, fmt.Errorf("--row-bytes %d: want at least 1 (leave it out for the table's c)", m.rowBytes)
	case m.tables < 1:
		return nil, fmt.Errorf("--tables %d: want at least 1", m.tables)
	case m.tableSize < 1:
		return nil, fmt.Errorf("--table-size %d: want at least 1", m.tableSize)
	case m.connectTimeout < 0:
		return nil, fmt.Errorf("--connect-timeout %v: want 0 (none) or more", m.connectTimeout)
	case m.maxAllowedPacket < mock.MinMaxAllowedPacket || m.maxAllowedPacket > mock.MaxMaxAllowedPacket:
		return nil, fmt.Errorf("--max-allowed-packet %d: want %d to %d, as mysqld", m.maxAllowedPacket, mock.MinMaxAllowedPacket, mock.MaxMaxAllowedPacket)
	}
	timeout := m.connectTimeout
	if timeout == 0 {
		timeout = -1 // ServerConfig's "none"
	}
	cfg := mock.ServerConfig{User: m.user, Password: m.password, Auth: m.auth, Rows: m.rows, RowBytes: m.rowBytes,
		Tables: m.tables, TableSize: m.tableSize, Seed: m.seed,
		ConnectTimeout: timeout, MaxAllowedPacket: m.maxAllowedPacket}
	if svc.Time > 0 {
		cfg.Service = svc.Spend
	}
	srv, err := mock.NewServer(cfg)
	if err != nil {
		// Only the bounds of the reshaped result and of the tables are
		// left to fail.
		return nil, fmt.Errorf("--rows %d --row-bytes %d --tables %d --table-size %d: %w", m.rows, m.rowBytes, m.tables, m.tableSize, err)
	}
	return mock.Handler{Server: srv}, nil
}

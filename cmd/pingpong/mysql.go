package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/pingpong/echo"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/sockets"
)

// defaultPassword is pongd's default account's, as sysbench's examples
// use: `pingpong --proto mysql` against `pongd --proto mysql` needs none.
const defaultPassword = "sbtest"

// mysqlFlags are the --proto mysql flags, defaults as sysbench's.
type mysqlFlags struct {
	user, password, db string
	command, query     string
	ps, connectOnly    bool
	tableSize          int
}

// names of the flags that only --proto mysql takes.
var mysqlOnly = []string{"user", "password", "db", "command", "query", "ps", "table-size", "connect-only"}

func addMySQLFlags(fs *pflag.FlagSet) *mysqlFlags {
	m := &mysqlFlags{}
	fs.StringVar(&m.user, "user", "sbtest", "mysql: user to log in as")
	fs.StringVar(&m.password, "password", "", "mysql: password (default $MYSQL_PWD, else pongd's default sbtest); never printed")
	fs.StringVar(&m.db, "db", "sbtest", "mysql: schema to select at connect")
	fs.StringVar(&m.command, "command", "point-select", "mysql: each event runs ping, select1, point-select, oltp-ro (sysbench's 16-statement transaction) or query")
	fs.StringVar(&m.query, "query", "", "mysql: the SQL of --command query")
	fs.BoolVar(&m.ps, "ps", true, "mysql: prepared statements, as sysbench's default; --ps=false sends text as --db-ps-mode=disable")
	fs.IntVar(&m.tableSize, "table-size", 10000, "mysql: ids drawn from 1..N, as sysbench's --table-size")
	fs.BoolVar(&m.connectOnly, "connect-only", false, "mysql: each event is a whole connection set-up (dial, login, COM_QUIT, close)")
	return m
}

// protocol builds the protocol --proto names; mysql flags with echo and
// echo's with mysql are usage errors, naming the flag.
func protocol(fs *pflag.FlagSet, proto string, size int, m *mysqlFlags, target sockets.Addr, model pingpong.IOModel) (pingpong.Protocol, error) {
	switch proto {
	case "echo":
		for _, f := range mysqlOnly {
			if fs.Changed(f) {
				return nil, fmt.Errorf("--%s: a mysql flag; add --proto mysql", f)
			}
		}
		if err := echo.CheckSize(size); err != nil {
			return nil, fmt.Errorf("--size: %w", err)
		}
		return echo.Protocol{Size: size}, nil
	case "mysql":
		if fs.Changed("size") {
			return nil, errors.New("--size: an echo flag; a mysql request's size is its statement's")
		}
		return m.protocol(fs, target, model)
	}
	return nil, fmt.Errorf("--proto %q: want echo or mysql", proto)
}

func (m *mysqlFlags) protocol(fs *pflag.FlagSet, target sockets.Addr, model pingpong.IOModel) (pingpong.Protocol, error) {
	client := mysql.ClientConfig{User: m.user, Password: m.password, DB: m.db}
	if !fs.Changed("password") {
		client.Password = defaultPassword
		if pw, ok := os.LookupEnv("MYSQL_PWD"); ok {
			client.Password = pw
		}
	}
	if m.connectOnly {
		for _, f := range []string{"command", "query", "ps", "table-size"} {
			if fs.Changed(f) {
				return nil, fmt.Errorf("--%s: --connect-only runs no statements", f)
			}
		}
		return &mysql.ConnectOnly{Client: client, Dial: pingpong.Dialer(target, model)}, nil
	}
	cmd, err := mysql.ParseCommand(m.command)
	if err != nil {
		return nil, fmt.Errorf("--command: %w", err)
	}
	switch {
	case cmd == mysql.CommandQuery && m.query == "":
		return nil, errors.New("--query: --command query needs the SQL")
	case cmd != mysql.CommandQuery && fs.Changed("query"):
		return nil, fmt.Errorf("--query: only --command query runs it, not %s", cmd)
	case m.tableSize < 1:
		return nil, fmt.Errorf("--table-size %d: want at least 1", m.tableSize)
	}
	w, err := mysql.NewWorkload(mysql.WorkloadConfig{Command: cmd, Query: m.query, TableSize: m.tableSize, PS: m.ps})
	if err != nil {
		return nil, fmt.Errorf("--command %s: %w", cmd, err)
	}
	return &mysql.Protocol{Client: client, Workload: w}, nil
}

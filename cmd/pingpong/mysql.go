package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/internal/cli"
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

	tables, inStatement   int
	rangeSelects, skipTrx bool
	ignoreErrors          string

	// urlPassword: a mysql:// --target gave the password, so neither
	// $MYSQL_PWD nor pongd's default stands in.
	urlPassword bool
}

// fromURL takes the user, password and schema a mysql:// --target names;
// one also given as a flag is refused, whichever was meant.
func (m *mysqlFlags) fromURL(fs *pflag.FlagSet, u mysql.URL) error {
	for _, f := range []struct {
		flag, value string
		set         bool
		dst         *string
	}{
		{"user", u.User, true, &m.user},
		{"password", u.Password, u.HasPass, &m.password},
		{"db", u.DB, u.DB != "", &m.db},
	} {
		if !f.set {
			continue
		}
		if fs.Changed(f.flag) {
			return fmt.Errorf("names the %s already; leave --%s out", f.flag, f.flag)
		}
		*f.dst = f.value
	}
	m.urlPassword = u.HasPass
	return nil
}

// names of the flags that only --proto mysql takes.
var mysqlOnly = []string{"user", "password", "db", "command", "query", "ps", "table-size", "connect-only",
	"tables", "range-selects", "in-statement", "skip-trx", "ignore-errors"}

// oltpOnly are the flags of the oltp commands' shape.
var oltpOnly = []string{"tables", "range-selects", "in-statement", "skip-trx"}

func addMySQLFlags(fs *pflag.FlagSet) *mysqlFlags {
	m := &mysqlFlags{}
	fs.StringVar(&m.user, "user", "sbtest", "user to log in as")
	fs.StringVar(&m.password, "password", "", "password (default $MYSQL_PWD, else pongd's sbtest); never printed")
	fs.StringVar(&m.db, "db", "sbtest", "schema to select at connect")
	fs.StringVar(&m.command, "command", "point-select", "each event: ping, select1, point-select, oltp-ro, oltp-rw, "+
		"oltp-wo (sysbench's transactions) or query")
	fs.StringVar(&m.query, "query", "", "the SQL of --command query")
	fs.BoolVar(&m.ps, "ps", true, "prepared statements, as sysbench; --ps=false sends text")
	fs.IntVar(&m.tableSize, "table-size", 10000, "ids drawn from 1..N (sysbench's --table-size)")
	fs.IntVar(&m.tables, "tables", 1, "oltp-*: tables sbtest1..N (sysbench's --tables)")
	fs.BoolVar(&m.rangeSelects, "range-selects", true, "oltp-ro, oltp-rw: the 4 range selects (sysbench's --range_selects)")
	fs.IntVar(&m.inStatement, "in-statement", 0, "oltp-ro, oltp-rw: each point select reads N ids, WHERE id IN (...); 0: off")
	fs.BoolVar(&m.skipTrx, "skip-trx", false, "oltp-*: no BEGIN/COMMIT, each statement in autocommit")
	fs.StringVar(&m.ignoreErrors, "ignore-errors", "1213,1020,1205,1047", "server errors that restart the event, counted "+
		"as ignored: codes, all or none")
	fs.BoolVar(&m.connectOnly, "connect-only", false, "each event is a whole connection set-up: dial, login, COM_QUIT, close")
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
			return nil, cli.BadValue("--size", strconv.Itoa(size), err)
		}
		return echo.Protocol{Size: size}, nil
	case "mysql":
		if fs.Changed("size") {
			return nil, errors.New("--size: an echo flag; a mysql request's size is its statement's")
		}
		return m.protocol(fs, target, model)
	}
	return nil, cli.Usage(fmt.Errorf("--proto %q: want echo or mysql", proto))
}

func (m *mysqlFlags) protocol(fs *pflag.FlagSet, target sockets.Addr, model pingpong.IOModel) (pingpong.Protocol, error) {
	client := mysql.ClientConfig{User: m.user, Password: m.password, DB: m.db}
	if !fs.Changed("password") && !m.urlPassword {
		client.Password = defaultPassword
		if pw, ok := os.LookupEnv("MYSQL_PWD"); ok {
			client.Password = pw
		}
	}
	if m.connectOnly {
		for _, f := range append([]string{"command", "query", "ps", "table-size", "ignore-errors"}, oltpOnly...) {
			if fs.Changed(f) {
				return nil, fmt.Errorf("--%s: --connect-only runs no statements", f)
			}
		}
		return &mysql.ConnectOnly{Client: client, Dial: pingpong.Dialer(target, model)}, nil
	}
	cmd, err := mysql.ParseCommand(m.command)
	if err != nil {
		return nil, cli.BadValue("--command", m.command, err)
	}
	switch {
	case cmd == mysql.CommandQuery && m.query == "":
		return nil, errors.New("--query: --command query needs the SQL")
	case cmd != mysql.CommandQuery && fs.Changed("query"):
		return nil, fmt.Errorf("--query: only --command query runs it, not %s", cmd)
	case m.tableSize < 1:
		return nil, fmt.Errorf("--table-size %d: want at least 1", m.tableSize)
	case m.tables < 1:
		return nil, fmt.Errorf("--tables %d: want at least 1", m.tables)
	}
	if cmd != mysql.CommandOLTPRO && cmd != mysql.CommandOLTPRW && cmd != mysql.CommandOLTPWO {
		for _, f := range oltpOnly {
			if fs.Changed(f) {
				return nil, fmt.Errorf("--%s: only the oltp commands take it, not %s", f, cmd)
			}
		}
	}
	if cmd == mysql.CommandOLTPWO && (fs.Changed("range-selects") || fs.Changed("in-statement")) {
		return nil, errors.New("--range-selects, --in-statement: oltp-wo sends no selects")
	}
	wc := mysql.WorkloadConfig{Command: cmd, Query: m.query, TableSize: m.tableSize, PS: m.ps,
		Tables: m.tables, NoRangeSelects: !m.rangeSelects, InStatement: m.inStatement, SkipTrx: m.skipTrx}
	var err2 error
	wc.IgnoreErrors, wc.IgnoreAll, err2 = parseIgnoreErrors(m.ignoreErrors)
	if err2 != nil {
		return nil, cli.BadValue("--ignore-errors", m.ignoreErrors, err2)
	}
	w, err := mysql.NewWorkload(wc)
	if err != nil {
		return nil, fmt.Errorf("--command %s: %w", cmd, err)
	}
	return &mysql.Protocol{Client: client, Workload: w}, nil
}

// parseIgnoreErrors reads --ignore-errors: error codes separated by commas
// (or RonDB's semicolons), "all", or "none".
func parseIgnoreErrors(s string) (codes []uint16, all bool, err error) {
	switch strings.TrimSpace(s) {
	case "all":
		return nil, true, nil
	case "none", "":
		return []uint16{}, false, nil
	}
	codes = []uint16{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 16)
		if err != nil || n == 0 {
			return nil, false, fmt.Errorf("%q: want error codes (1213,1205), all or none", f)
		}
		codes = append(codes, uint16(n))
	}
	return codes, false, nil
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
)

// mysqlReport is what the mysql tests read from --format json.
type mysqlReport struct {
	Config struct {
		Protocol map[string]any
	}
	Results []struct {
		TPS          struct{ Mean float64 }
		QPS          *struct{ Mean float64 }
		Transactions int64
		Queries      int64
		Errors       int64
		ErrorSamples []string               `json:"error_samples"`
		Connect      *struct{ P50 float64 } `json:"connect_us"`
	}
}

// pingpongJSON runs pingpong with args and --format json, in-process, and
// returns the parsed report and run's error.
func pingpongJSON(t *testing.T, args ...string) (mysqlReport, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(append(args, "--format", "json"), &out, &errOut)
	var rep mysqlReport
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil && err == nil {
		t.Fatalf("pingpong %q: %v\n%s", args, jerr, out.String())
	}
	return rep, out.String(), err
}

// mysqlCommands are the --command cases run against a server whose table
// sbtest1 holds 10000 rows.
var mysqlCommands = [][]string{
	{"--command", "ping"},
	{"--command", "select1"},
	{"--command", "point-select"},
	{"--command", "point-select", "--ps=false"},
	{"--command", "oltp-ro"},
	{"--command", "oltp-rw"},
	{"--command", "oltp-wo", "--ps=false"},
	{"--command", "oltp-ro", "--range-selects=false", "--in-statement", "5", "--skip-trx"},
	{"--command", "query", "--query", "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 9", "--ps=false"},
}

// checkRuns runs every command against target; each must run clean.
func checkRuns(t *testing.T, target string, login ...string) {
	t.Helper()
	for _, c := range mysqlCommands {
		args := append([]string{"--proto", "mysql", "--target", target, "--time", "300ms"}, login...)
		rep, out, err := pingpongJSON(t, append(args, c...)...)
		if err != nil {
			t.Errorf("%s %q: %v", target, c, err)
			continue
		}
		if len(rep.Results) != 1 {
			t.Fatalf("%s %q: %d results\n%s", target, c, len(rep.Results), out)
		}
		r := rep.Results[0]
		if r.Errors != 0 || r.TPS.Mean <= 0 || r.Connect == nil || r.Connect.P50 <= 0 {
			t.Errorf("%s %q: %d errors %q, tps %v, connect_us %v", target, c, r.Errors, r.ErrorSamples, r.TPS.Mean, r.Connect)
		}
		if per := map[string]int64{"oltp-ro": 16, "oltp-rw": 20, "oltp-wo": 6}[c[1]]; per > 0 {
			if len(c) > 2 && c[2] == "--range-selects=false" {
				per = 10
			}
			if r.QPS == nil || r.Queries != per*r.Transactions {
				t.Errorf("%s %q: %d queries for %d transactions (qps %v), want %d per transaction", target, c, r.Queries, r.Transactions, r.QPS, per)
			}
		} else if r.QPS != nil {
			t.Errorf("%s %q: qps %v apart from tps, want one statement per event", target, c, r.QPS.Mean)
		}
		for _, pw := range login {
			if strings.Contains(out, pw) && strings.HasPrefix(pw, "bench-pw") {
				t.Errorf("%s %q: the report prints the password", target, c)
			}
		}
	}
}

func TestMySQLAgainstMariaDB(t *testing.T) {
	db := mariadbtest.Shared(t)
	login := []string{"--user", db.User, "--password", db.Password, "--db", db.DB}
	for _, target := range []string{"tcp:" + db.Addr, "unix:" + db.Socket} {
		checkRuns(t, target, login...)
	}
}

func TestMySQLAgainstPongd(t *testing.T) {
	// pongd's default account is the client's default: no login flags.
	_, addrs := pongd(t, "--proto", "mysql", "--io", "blocking", "--service-time", "1us")
	for _, a := range addrs {
		checkRuns(t, a)
	}
}

// TestMySQLServerError: a failing statement is counted with its code, as
// the mysql client prints it, and fails the run.
func TestMySQLServerError(t *testing.T) {
	db := mariadbtest.Shared(t)
	rep, _, err := pingpongJSON(t, "--proto", "mysql", "--target", "unix:"+db.Socket, "--time", "200ms",
		"--user", db.User, "--password", db.Password, "--command", "query", "--query", "SELECT * FROM nosuch", "--ps=false")
	if err == nil || !strings.Contains(err.Error(), "ERROR 1146 (42S02): Table 'sbtest.nosuch' doesn't exist") {
		t.Fatalf("run = %v, want a failure quoting ERROR 1146 (42S02)", err)
	}
	r := rep.Results[0]
	if r.Errors == 0 || len(r.ErrorSamples) == 0 || !strings.HasPrefix(r.ErrorSamples[0], "ERROR 1146 (42S02): ") {
		t.Errorf("%d errors, samples %q: want ERROR 1146 (42S02) first", r.Errors, r.ErrorSamples)
	}
}

// TestMySQLWrongPassword runs the binary: exit 1, ERROR 1045 named, the
// password not.
func TestMySQLWrongPassword(t *testing.T) {
	db := mariadbtest.Shared(t)
	bin := peer.Hoplat(t, "pingpong")
	for _, target := range []string{"tcp:" + db.Addr, "unix:" + db.Socket} {
		cmd := exec.Command(bin, "--proto", "mysql", "--target", target, "--time", "200ms", "--user", db.User)
		cmd.Env = append(cmd.Environ(), "MYSQL_PWD=not-the-pw-42")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%s: %v, want exit status 1\n%s", target, err, out)
		}
		if !strings.Contains(string(out), "ERROR 1045 (28000): Access denied for user 'bench'") || strings.Contains(string(out), "not-the-pw-42") {
			t.Errorf("%s: %s\nwant ERROR 1045 and no password", target, out)
		}
	}
}

// TestMySQLConnectOnly: each event a whole login, against both servers;
// the text report carries the set-up latency of the workers too.
func TestMySQLConnectOnly(t *testing.T) {
	db := mariadbtest.Shared(t)
	_, addrs := pongd(t, "--proto", "mysql")
	for _, tc := range []struct {
		target string
		login  []string
	}{
		{"tcp:" + db.Addr, []string{"--user", db.User, "--password", db.Password}},
		{"unix:" + db.Socket, []string{"--user", db.User, "--password", db.Password}},
		{addrs[0], nil},
		{addrs[1], []string{"--io", "spin"}},
	} {
		args := append([]string{"--proto", "mysql", "--connect-only", "--target", tc.target, "--time", "300ms"}, tc.login...)
		rep, _, err := pingpongJSON(t, args...)
		if err != nil {
			t.Errorf("%s: %v", tc.target, err)
			continue
		}
		if r := rep.Results[0]; r.Errors != 0 || r.Transactions == 0 || rep.Config.Protocol["connect_only"] != true {
			t.Errorf("%s: %d connections, %d errors %q, config %v", tc.target, r.Transactions, r.Errors, r.ErrorSamples, rep.Config.Protocol)
		}
	}
	var out bytes.Buffer
	if err := run([]string{"--proto", "mysql", "--target", addrs[0], "--time", "100ms"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Connect latency (us):") || !strings.Contains(out.String(), "SQL statistics:") {
		t.Errorf("text report lacks the connect latency or SQL statistics:\n%s", out.String())
	}
}

var (
	sysbenchTx   = regexp.MustCompile(`transactions:\s+(\d+)`)
	sysbenchErrs = regexp.MustCompile(`ignored errors:\s+(\d+)`)
)

// TestPongdMySQLPrograms serves clients we did not write from the pongd
// binary: the mariadb client and sysbench, with its default account.
func TestPongdMySQLPrograms(t *testing.T) {
	cli := peer.Require(t, "mariadb")
	sb := peer.Require(t, "sysbench")
	for _, model := range []string{"netpoll", "spin"} {
		_, addrs := pongd(t, "--proto", "mysql", "--io", model, "--rows", "2", "--row-bytes", "11")
		for _, a := range addrs {
			var via, sbVia []string
			if path, ok := strings.CutPrefix(a, "unix:"); ok {
				via, sbVia = []string{"--socket=" + path}, []string{"--mysql-socket=" + path}
			} else {
				port := a[strings.LastIndexByte(a, ':')+1:]
				via = []string{"-h127.0.0.1", "-P" + port}
				sbVia = []string{"--mysql-host=127.0.0.1", "--mysql-port=" + port}
			}
			args := append(append([]string{"--no-defaults"}, via...), "-usbtest", "-psbtest", "-e", "SELECT c FROM sbtest1 WHERE id=1", "sbtest")
			out, err := exec.Command(cli, args...).CombinedOutput()
			if err != nil || strings.Count(string(out), "\n") != 3 {
				t.Errorf("%s %s: mariadb: %v\n%s\nwant a header and two rows", model, a, err, out)
			}
			for _, ps := range []string{"auto", "disable"} {
				args := append([]string{"oltp_read_only", "--db-driver=mysql"}, sbVia...)
				args = append(args, "--mysql-user=sbtest", "--mysql-password=sbtest", "--mysql-db=sbtest", "--tables=1",
					"--table-size=10000", "--threads=2", "--events=200", "--time=0", "--db-ps-mode="+ps, "run")
				out, err := exec.Command(sb, args...).CombinedOutput()
				tx, errs := sysbenchTx.FindSubmatch(out), sysbenchErrs.FindSubmatch(out)
				if err != nil || tx == nil || errs == nil {
					t.Errorf("%s %s ps=%s: sysbench: %v\n%s", model, a, ps, err, out)
					continue
				}
				if n, _ := strconv.Atoi(string(tx[1])); n != 200 || string(errs[1]) != "0" {
					t.Errorf("%s %s ps=%s: sysbench ran %s transactions with %s errors, want 200 and 0", model, a, ps, tx[1], errs[1])
				}
			}
		}
	}
}

// TestMySQLFlagErrors: flag values that make no sense for the protocol
// are usage errors naming the flag.
func TestMySQLFlagErrors(t *testing.T) {
	base := []string{"--target", "tcp:127.0.0.1:1"}
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--user", "x"}, "--user"},
		{[]string{"--command", "ping"}, "--command"},
		{[]string{"--ps=false"}, "--ps"},
		{[]string{"--connect-only"}, "--connect-only"},
		{[]string{"--proto", "mysql", "--size", "64"}, "--size"},
		{[]string{"--proto", "mysql", "--command", "insert"}, "--command"},
		{[]string{"--proto", "mysql", "--query", "SELECT 2"}, "--query"},
		{[]string{"--proto", "mysql", "--command", "query"}, "--query"},
		{[]string{"--proto", "mysql", "--table-size", "0"}, "--table-size"},
		{[]string{"--proto", "mysql", "--connect-only", "--command", "ping"}, "--command"},
		{[]string{"--proto", "mysql", "--command", "point-select", "--tables", "2"}, "--tables"},
		{[]string{"--proto", "mysql", "--command", "oltp-rw", "--tables", "0"}, "--tables"},
		{[]string{"--proto", "mysql", "--command", "oltp-wo", "--in-statement", "3"}, "--in-statement"},
		{[]string{"--proto", "mysql", "--command", "oltp-ro", "--in-statement", "-1"}, "in-statement"},
		{[]string{"--proto", "mysql", "--command", "oltp-rw", "--ignore-errors", "12x3"}, "--ignore-errors"},
		{[]string{"--proto", "mysql", "--command", "oltp-rw", "--ignore-errors", "70000"}, "--ignore-errors"},
		{[]string{"--proto", "mysql", "--skip-trx"}, "--skip-trx"},
	} {
		err := run(append(base, tc.args...), io.Discard, io.Discard)
		if !cli.IsUsage(err) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%q: %v, want a usage error naming %s", tc.args, err, tc.flag)
		}
	}
}

// TestPongdMySQLFlagErrors runs the binary: exit 2, naming the flag.
func TestPongdMySQLFlagErrors(t *testing.T) {
	bin := peer.Hoplat(t, "pongd")
	listen := []string{"--listen", "tcp:127.0.0.1:0"}
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--rows", "3"}, "--rows"},
		{[]string{"--proto", "mysql", "--auth", "sha256_password"}, "--auth"},
		{[]string{"--proto", "mysql", "--rows", "0"}, "--rows"},
		{[]string{"--proto", "mysql", "--row-bytes", "-1"}, "--row-bytes"},
		{[]string{"--proto", "mysql", "--rows", "1000000", "--row-bytes", "1000"}, "--rows"},
	} {
		out, err := exec.Command(bin, append(listen, tc.args...)...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), tc.flag) {
			t.Errorf("pongd %q: %v %q, want exit 2 naming %s", tc.args, err, out, tc.flag)
		}
	}
}

func TestParseIgnoreErrors(t *testing.T) {
	for _, tc := range []struct {
		in    string
		codes []uint16
		all   bool
	}{
		{"1213,1020,1205,1047", []uint16{1213, 1020, 1205, 1047}, false},
		{"1213;1205", []uint16{1213, 1205}, false},
		{" 1047 ", []uint16{1047}, false},
		{"all", nil, true},
		{"none", []uint16{}, false},
	} {
		codes, all, err := parseIgnoreErrors(tc.in)
		if err != nil || all != tc.all || !slices.Equal(codes, tc.codes) || (codes == nil) != (tc.codes == nil) {
			t.Errorf("parseIgnoreErrors(%q) = %v, %v, %v; want %v, %v", tc.in, codes, all, err, tc.codes, tc.all)
		}
	}
	for _, bad := range []string{"x", "1213,x", "0", "-5", "65536", "all,1213"} {
		if _, _, err := parseIgnoreErrors(bad); err == nil {
			t.Errorf("parseIgnoreErrors(%q) accepted", bad)
		}
	}
}

// FuzzParseIgnoreErrors: any text is refused or read into codes that
// print back to a list parsing to the same codes.
func FuzzParseIgnoreErrors(f *testing.F) {
	for _, s := range []string{"1213,1020,1205,1047", "all", "none", "1;2", "", "x,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		codes, all, err := parseIgnoreErrors(s)
		if err != nil || all {
			return
		}
		var parts []string
		for _, c := range codes {
			if c == 0 {
				t.Fatalf("%q: code 0 accepted", s)
			}
			parts = append(parts, strconv.Itoa(int(c)))
		}
		if len(parts) == 0 {
			return
		}
		again, _, err := parseIgnoreErrors(strings.Join(parts, ","))
		if err != nil || !slices.Equal(again, codes) {
			t.Fatalf("%q: %v, printed and parsed again %v, %v", s, codes, again, err)
		}
	})
}

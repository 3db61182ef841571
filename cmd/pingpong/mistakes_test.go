package main

import (
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/porttest"
	"github.com/hoplat/hoplat/pingpong/mysql"
)

// TestMistakes runs the binary on the mistakes people make: each exits 2
// with one line that names what was typed and what to type instead, and
// no Go package's name.
func TestMistakes(t *testing.T) {
	closed := "tcp:127.0.0.1:" + strconv.Itoa(porttest.Closed(t))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "tcp:localhost"}, `pingpong: --target "tcp:localhost": the port is missing; want tcp:localhost:PORT`},
		{[]string{"--target", closed, "--time", "1s"}, `pingpong: --target "` + closed + `": connection refused: nothing listens there; start the server first`},
		{[]string{"--target", "unix:/nonexistent/p.sock", "--time", "1s"}, `pingpong: --target "unix:/nonexistent/p.sock": no such socket: nothing listens there`},
		{[]string{"--target", "mysql://u:pw-42@" + strings.TrimPrefix(closed, "tcp:") + "/db", "--time", "1s"}, `": connection refused`},
		{[]string{"--target", "mysql://u:pw-42@127.0.0.1:1/db", "--user", "v"}, `--target "mysql://u:***@127.0.0.1:1/db": names the user already; leave --user out`},
		{[]string{"--target", "mysql://u:pw-42@127.0.0.1:1/db", "--proto", "echo"}, `--proto "echo": a mysql:// --target speaks mysql`},
		{[]string{"--target", "mysql://u:pw-42@a:1,b:2/db"}, "pingpong loads one server; name one host"},
		{[]string{"--target", closed, "--run", "3"}, "pingpong: unknown option --run; did you mean --runs?"},
	} {
		cmd := exec.Command(peer.Hoplat(t, "pingpong"), tc.args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%q: %v, want exit status 2\n%s", tc.args, err, stderr.String())
		}
		msg := stderr.String()
		if !strings.Contains(msg, tc.want) || strings.Count(msg, "\n") != 1 || len(out) != 0 {
			t.Errorf("%q: stderr %q, stdout %q; want one line with %q", tc.args, msg, out, tc.want)
		}
		for _, pkg := range []string{"sockets: ", "worker ", "dial ", "syscall", "mysql: ", "pw-42"} {
			if strings.Contains(msg, pkg) {
				t.Errorf("%q: %q holds %q", tc.args, msg, pkg)
			}
		}
	}
}

// A mysql:// --target is read as hopbench --backend reads it: it implies
// --proto mysql, and its user, password and schema log in. A wrong password
// in the URL is refused by the server, so the URL's is the one sent, not
// pongd's default.
func TestMySQLURLTarget(t *testing.T) {
	_, addrs := pongd(t, "--proto", "mysql", "--io", "blocking")
	hostPort := strings.TrimPrefix(addrs[0], "tcp:")
	rep, out, err := pingpongJSON(t, "--target", "mysql://sbtest:sbtest@"+hostPort+"/sbtest", "--time", "300ms")
	if err != nil {
		t.Fatalf("mysql:// target: %v\n%s", err, out)
	}
	if len(rep.Results) != 1 || rep.Results[0].Errors != 0 || rep.Results[0].TPS.Mean <= 0 {
		t.Errorf("mysql:// target: %+v", rep.Results)
	}
	_, out, err = pingpongJSON(t, "--target", "mysql://sbtest:not-the-pw@"+hostPort+"/sbtest", "--time", "300ms")
	if err == nil || !strings.Contains(err.Error()+out, "1045") {
		t.Errorf("a wrong password in the URL: %v, want ERROR 1045\n%s", err, out)
	}
}

// The URL's parts land where the flags would put them, and a URL without
// a password leaves the password to --password.
func TestParseMySQLURL(t *testing.T) {
	o, err := parse([]string{"--target", "mysql://u:p@127.0.0.1:3306/db"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := o.cfg.Protocol.(*mysql.Protocol)
	if !ok || p.Client != (mysql.ClientConfig{User: "u", Password: "p", DB: "db"}) || o.cfg.Target.String() != "tcp:127.0.0.1:3306" {
		t.Errorf("target %v protocol %#v", o.cfg.Target, o.cfg.Protocol)
	}
	o, err = parse([]string{"--target", "mysql://u@unix(/run/m.sock)/db", "--password", "q"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := o.cfg.Protocol.(*mysql.Protocol); !ok || p.Client.Password != "q" || o.cfg.Target.String() != "unix:/run/m.sock" {
		t.Errorf("target %v protocol %#v", o.cfg.Target, o.cfg.Protocol)
	}
}

package mock

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// TestHAProxyMySQLCheck puts the mock behind HAProxy with `option
// mysql-check`, over TCP and UNIX: the check logs in as its user and quits,
// and HAProxy must report the servers UP (L7OK). A backend checking as an
// account the mock refuses must go DOWN, so the test can fail. A client
// then logs in through HAProxy's frontend.
func TestHAProxyMySQLCheck(t *testing.T) {
	haproxy := peer.Require(t, "haproxy")
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "haproxy"})
	dir, err := os.MkdirTemp("", "hoplat-haproxy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	stats := filepath.Join(dir, "stats.sock")
	front := filepath.Join(dir, "front.sock")
	cfg := fmt.Sprintf(`global
	stats socket %s mode 600 level admin
defaults
	mode tcp
	timeout connect 2s
	timeout client 10s
	timeout server 10s
frontend fe
	bind unix@%s
	default_backend ok
backend ok
	option mysql-check user haproxy post-41
	server tcp %s check inter 100ms rise 1 fall 1
	server unix unix@%s check inter 100ms rise 1 fall 1
backend denied
	option mysql-check user intruder post-41
	server tcp %s check inter 100ms rise 1 fall 1
`, stats, front, m.TCPAddr, m.Sock, m.TCPAddr)
	cfgPath := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd := exec.Command(haproxy, "-db", "-f", cfgPath)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", log.Bytes())
		}
	})

	want := map[string]string{"ok/tcp": "UP L7OK", "ok/unix": "UP L7OK", "denied/tcp": "DOWN L7STS"}
	var got map[string]string
	deadline := time.Now().Add(20 * time.Second)
	// HAProxy checks every 100 ms and announces no event: its stats
	// socket is polled until the states settle or the deadline passes.
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		got = serverStates(t, stats)
		if settled(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy reports %v, want %v", got, want)
		}
		<-poll.C
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: HAProxy reports %q, want %q", k, got[k], w)
		}
	}
	// HAProxy forwards bytes: a login through it works.
	c := mysqltest.MustDial(t, mysql.Connect, "unix", front, mysql.ClientConfig{User: "haproxy"})
	if n, err := c.Query("SELECT 1"); err != nil || n != 1 {
		t.Fatalf("SELECT 1 through HAProxy: %d rows, %v", n, err)
	}
}

// settled reports whether every server's check has run (a status other
// than HAProxy's initial one) and the states match want or are final.
func settled(got, want map[string]string) bool {
	for k := range want {
		s, ok := got[k]
		if !ok || !strings.Contains(s, " L") || s != want[k] && !strings.HasPrefix(s, "DOWN") {
			return false
		}
	}
	return true
}

// serverStates asks HAProxy's stats socket for "show stat" and returns
// "backend/server" -> "status check_status".
func serverStates(t *testing.T, stats string) map[string]string {
	t.Helper()
	c, err := net.Dial("unix", stats)
	if err != nil {
		return nil // not listening yet
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "show stat\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("# "))))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("show stat: %v\n%s", err, b)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	out := map[string]string{}
	for _, rec := range recs[1:] {
		if len(rec) <= col["check_status"] {
			continue
		}
		sv := rec[col["svname"]]
		if sv == "FRONTEND" || sv == "BACKEND" {
			continue
		}
		// A leading "* " marks a check in progress; the rest is the last
		// check's result.
		check := strings.TrimPrefix(rec[col["check_status"]], "* ")
		out[rec[col["pxname"]]+"/"+sv] = rec[col["status"]] + " " + check
	}
	return out
}

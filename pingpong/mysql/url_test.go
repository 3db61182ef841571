package mysql

import (
	"strings"
	"testing"
)

// The forms hopbench --backend and pingpong --target share, and errors
// that never hold the password.
func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, tcp, unix, user, pw, db string
		servers                     int
		err                         string
	}{
		{in: "mysql://u:p@127.0.0.1:3306/db", tcp: "tcp:127.0.0.1:3306", user: "u", pw: "p", db: "db"},
		{in: "mysql://u@db.example/sbtest", tcp: "tcp:db.example:3306", user: "u", db: "sbtest"},
		{in: "mysql://u:p@unix(/run/mysqld/mysqld.sock)/db", unix: "unix:/run/mysqld/mysqld.sock", user: "u", pw: "p", db: "db"},
		{in: "mysql://u:p@h:1/d?socket=/s.sock", tcp: "tcp:h:1", unix: "unix:/s.sock", user: "u", pw: "p", db: "d"},
		{in: "mysql://u:p@a:1,b:2,c:3/d", tcp: "tcp:a:1", user: "u", pw: "p", db: "d", servers: 3},
		{in: "tcp:127.0.0.1:3306", err: "want mysql://"},
		{in: "mysql://h:1/d", err: "no user"},
		{in: "mysql://u:secret@h:99999/d", err: `bad port "99999"`},
		{in: "mysql://u:secret@unix(/x/d", err: "unix( without )"},
		{in: "mysql://u:secret@h:1/d%zz", err: "invalid URL escape"},
	} {
		u, err := ParseURL(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "secret") {
				t.Errorf("ParseURL(%q): %v, want an error with %q and no password", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tc.in, err)
			continue
		}
		addr := func(p interface{ String() string }, ok bool) string {
			if !ok {
				return ""
			}
			return p.String()
		}
		if got := addr(u.TCP, u.TCP != nil); got != tc.tcp {
			t.Errorf("ParseURL(%q) TCP %q, want %q", tc.in, got, tc.tcp)
		}
		if got := addr(u.UNIX, u.UNIX != nil); got != tc.unix {
			t.Errorf("ParseURL(%q) UNIX %q, want %q", tc.in, got, tc.unix)
		}
		if u.User != tc.user || u.Password != tc.pw || u.DB != tc.db || len(u.Servers) != tc.servers {
			t.Errorf("ParseURL(%q) = %+v", tc.in, u)
		}
	}
	if got := Mask("mysql://u:secret@h:1/d"); got != "mysql://u:***@h:1/d" {
		t.Errorf("Mask: %q", got)
	}
}

// No input panics, and a URL read names a server and a user.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"mysql://u:p@h:1/d", "mysql://u:p@unix(/s)/d", "mysql://u:p@a,b:2/d?socket=/x", "mysql://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURL(s)
		if err == nil && (u.TCP == nil && u.UNIX == nil || u.User == "") {
			t.Fatalf("ParseURL(%q) = %+v: no address or no user, and no error", s, u)
		}
	})
}

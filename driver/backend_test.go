package driver

import (
	"strings"
	"testing"
)

func TestParseBackend(t *testing.T) {
	for _, tc := range []struct {
		in                      string
		tcp, unix, user, pw, db string
		err                     string
	}{
		{in: "", tcp: "", unix: ""},
		{in: "embedded"},
		{in: "mysql://root:pw@127.0.0.1:3306/test", tcp: "127.0.0.1:3306", user: "root", pw: "pw", db: "test"},
		{in: "mysql://root@db.example:3307/", tcp: "db.example:3307", user: "root"},
		{in: "mysql://root:pw@localhost/sbtest", tcp: "localhost:3306", user: "root", pw: "pw", db: "sbtest"},
		{in: "mysql://root:pw@unix(/run/mysqld/mysqld.sock)/test", unix: "/run/mysqld/mysqld.sock", user: "root", pw: "pw", db: "test"},
		{in: "mysql://root:pw@127.0.0.1:3306/test?socket=/tmp/m.sock", tcp: "127.0.0.1:3306", unix: "/tmp/m.sock", user: "root", pw: "pw", db: "test"},
		{in: "postgres://x@y/z", err: "want embedded or mysql://"},
		{in: "mysql://:pw@h:1/d", err: "no user"},
		{in: "mysql://u:pw@h:99999/d", err: `bad port "99999"`},
		{in: "mysql://u:pw@unix(/x/d", err: "unix( without )"},
	} {
		b, err := ParseBackend(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBackend(%q) error %v, want %q", tc.in, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), ":pw@") {
				t.Errorf("error shows the password: %v", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseBackend(%q): %v", tc.in, err)
			continue
		}
		var tcp, unix string
		if b.TCP != nil {
			tcp = b.TCP.NetAddr()
		}
		if b.UNIX != nil {
			unix = b.UNIX.Path
		}
		if tcp != tc.tcp || unix != tc.unix || b.User != tc.user || b.Password != tc.pw || b.DB != tc.db {
			t.Errorf("ParseBackend(%q) = tcp %q unix %q user %q pw %q db %q", tc.in, tcp, unix, b.User, b.Password, b.DB)
		}
		if strings.Contains(b.String(), ":pw@") {
			t.Errorf("String shows the password: %s", b)
		}
	}
}

func FuzzParseBackend(f *testing.F) {
	for _, s := range []string{
		"embedded", "mysql://root:pw@127.0.0.1:3306/test", "mysql://u@unix(/s)/d",
		"mysql://u:p@h:1/d?socket=/x", "mysql://u:p@[::1]:3306/d", "mysql://@", "mysql://u@unix(",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBackend(s)
		if err != nil {
			return
		}
		if !b.Embedded() && b.User == "" {
			t.Errorf("%q: real backend without a user", s)
		}
		if b.TCP != nil && (b.TCP.Port <= 0 || b.TCP.Port > 65535) {
			t.Errorf("%q: port %d", s, b.TCP.Port)
		}
		_ = b.String()
	})
}

func FuzzParseBackends(f *testing.F) {
	for _, s := range []string{"embedded", "mysql://u:p@h:1/d;mysql://u:p@h:2/d", "mysql://u:p@h:1/d;embedded", ";", "mysql://u:p@h:1/d; "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bs, err := ParseBackends(s)
		if err != nil {
			return
		}
		if len(bs) == 0 {
			t.Fatalf("%q: no backend and no error", s)
		}
		for _, b := range bs {
			if len(bs) > 1 && b.Embedded() {
				t.Fatalf("%q: an embedded backend among several", s)
			}
		}
	})
}

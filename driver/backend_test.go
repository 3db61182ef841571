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

// A cluster's servers, comma-separated: TCP is the first, Servers all of
// them, and a bad one is named.
func TestParseBackendCluster(t *testing.T) {
	b, err := ParseBackend("mysql://sb:pw@10.0.0.1:3306,10.0.0.2,10.0.0.3:3307/sbtest?check_user=haproxy")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range b.Cluster() {
		got = append(got, a.NetAddr())
	}
	if strings.Join(got, " ") != "10.0.0.1:3306 10.0.0.2:3306 10.0.0.3:3307" || b.TCP.NetAddr() != "10.0.0.1:3306" ||
		b.User != "sb" || b.Password != "pw" || b.DB != "sbtest" || b.CheckUser != "haproxy" {
		t.Errorf("cluster %v, tcp %v, user %q pw %q db %q check %q", got, b.TCP, b.User, b.Password, b.DB, b.CheckUser)
	}
	if one, _ := ParseBackend("mysql://u:p@h:1/d"); one.Servers != nil || len(one.Cluster()) != 1 {
		t.Errorf("one server: Servers %v, Cluster %v", one.Servers, one.Cluster())
	}
	if _, err := ParseBackend("mysql://u:pw@h1:1,h2:x/d"); err == nil || !strings.Contains(err.Error(), `bad port "x"`) {
		t.Errorf("bad second server: %v", err)
	}
	if _, err := ParseBackend("mysql://u:pw@h1:1,/d"); err == nil || !strings.Contains(err.Error(), "no host") {
		t.Errorf("empty second server: %v", err)
	}
}

func FuzzParseBackend(f *testing.F) {
	for _, s := range []string{
		"embedded", "mysql://root:pw@127.0.0.1:3306/test", "mysql://u@unix(/s)/d",
		"mysql://u:p@h:1/d?socket=/x", "mysql://u:p@[::1]:3306/d", "mysql://@", "mysql://u@unix(",
		"mysql://u:p@a:1,b:2,c/d?check_user=x",
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
		if len(b.Servers) == 1 || (len(b.Servers) > 1 && b.Servers[0] != *b.TCP) {
			t.Errorf("%q: servers %v, tcp %v", s, b.Servers, b.TCP)
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

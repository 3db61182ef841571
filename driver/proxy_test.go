package driver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

func TestParseProxy(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "stream.conf")
	if err := os.WriteFile(conf, []byte("events { worker_connections 64; }\nstream { server { listen {listen}; proxy_pass {upstream}; } }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.conf")
	os.WriteFile(bad, []byte("listen {listen}; proxy_pass {upstrem};"), 0o600)
	for _, tc := range []struct {
		in      string
		addr    string   // a running proxy's address
		command []string // a template's words
		path    string
		err     string
	}{
		{in: "maxscale=tcp:127.0.0.1:4006", addr: "tcp:127.0.0.1:4006", path: "maxscale tcp->tcp"},
		{in: "proxysql=TCP4:127.0.0.1:6033,nodelay", addr: "tcp4:127.0.0.1:6033", path: "proxysql tcp->tcp"},
		{in: "mysqlproxy=unix:/run/mp.sock", addr: "unix:/run/mp.sock", path: "mysqlproxy unix->tcp"},
		{in: `nginx=nginx -p {dir} -c {config:` + conf + `} -g 'daemon off;'`,
			command: []string{"nginx", "-p", "{dir}", "-c", "{config:" + conf + "}", "-g", "daemon off;"}, path: "nginx tcp->tcp"},
		{in: `mp=mysql-proxy --proxy-address={listen} --proxy-backend-addresses="{upstream_host}:{upstream_port}"`,
			command: []string{"mysql-proxy", "--proxy-address={listen}", "--proxy-backend-addresses={upstream_host}:{upstream_port}"}, path: "mp tcp->tcp"},
		{in: `s=socat TCP4-LISTEN:{listen_port},fork TCP4:{upstream}`, command: []string{"socat", "TCP4-LISTEN:{listen_port},fork", "TCP4:{upstream}"}, path: "s tcp->tcp"},
		{in: "nginx", err: "want NAME=ADDR"},
		{in: "nginx=", err: "want NAME=ADDR"},
		{in: "Nginx=tcp:1.2.3.4:5", err: "lower-case"},
		{in: "epoll=tcp:1.2.3.4:5", err: "hopbench's own"},
		{in: "direct=tcp:1.2.3.4:5", err: "hopbench's own"},
		{in: "x=TCP-LISTEN:5", err: "listen address"},
		{in: "maxscale=tcp:localhost", err: `proxy "maxscale": address tcp:localhost: the port is missing; want tcp:localhost:PORT, where the proxy listens`},
		{in: "x=tcp:1.2.3.4:http", err: `address tcp:1.2.3.4:http: bad port "http"`},
		{in: "x=run --port {listen_port}", err: "{upstream}"},
		{in: "x=run --to {upstream}", err: "{listen}"},
		{in: "x=run {listen} {upstream} {lisen}", err: "unknown placeholder {lisen}"},
		{in: "x=run {config:/nonexistent/x.conf}", err: "/nonexistent/x.conf"},
		{in: "x=run {config:" + bad + "}", err: "unknown placeholder {upstrem}"},
		{in: "x=run 'open {listen} {upstream}", err: "unterminated '"},
	} {
		p, err := ParseProxy(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseProxy(%q) = %+v, %v; want an error with %q", tc.in, p, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseProxy(%q): %v", tc.in, err)
			continue
		}
		if got := p.Path().Name(); got != tc.path {
			t.Errorf("ParseProxy(%q) path %q, want %q", tc.in, got, tc.path)
		}
		switch {
		case tc.addr != "" && (p.Addr == nil || p.Addr.String() != tc.addr || p.Command != nil):
			t.Errorf("ParseProxy(%q) = addr %v command %q, want addr %s", tc.in, p.Addr, p.Command, tc.addr)
		case tc.command != nil && (p.Addr != nil || !slices.Equal(p.Command, tc.command)):
			t.Errorf("ParseProxy(%q) = addr %v command %q, want %q", tc.in, p.Addr, p.Command, tc.command)
		}
	}
}

// The template's placeholders are filled in, in the words and in the
// config file, which is written into the proxy's directory once however
// often the command names it.
func TestProxyExpand(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "stream.conf")
	os.WriteFile(conf, []byte("events { }\nstream { server { listen {listen}; proxy_pass {upstream}; } }\npid {dir}/p;\n"), 0o600)
	p, err := ParseProxy("nginx=nginx -p {dir} -c {config:" + conf + "} -t {config:" + conf + "} --port={listen_port} --host={upstream_host}")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	argv, err := p.expand(TCPAddr(4008), TCPAddr(3306), dir)
	if err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(dir, "0-stream.conf")
	want := []string{"nginx", "-p", dir, "-c", written, "-t", written, "--port=4008", "--host=127.0.0.1"}
	if !slices.Equal(argv, want) {
		t.Errorf("argv\n got %q\nwant %q", argv, want)
	}
	b, err := os.ReadFile(written)
	if want := "events { }\nstream { server { listen 127.0.0.1:4008; proxy_pass 127.0.0.1:3306; } }\npid " + dir + "/p;\n"; err != nil || string(b) != want {
		t.Errorf("config written %q, %v\nwant %q", b, err, want)
	}
}

func TestConfigProxies(t *testing.T) {
	x, err := ParseProxy("maxscale=tcp:127.0.0.1:4006")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Proxies: []Proxy{x}, Relays: []hop.Relay{hop.Direct}, Transports: []hop.Transport{hop.TCP}}
	if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), "--backend") {
		t.Errorf("a running proxy with the embedded backend: %v", err)
	}
	cfg.Backend, _ = ParseBackend("mysql://u:p@127.0.0.1:3306/d")
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	if got := cfg.Paths(); len(got) != 2 || got[1] != x.Path() {
		t.Errorf("paths %v, want direct and the proxy's", got)
	}
	cfg.Proxies = append(cfg.Proxies, x)
	if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a proxy twice: %v", err)
	}
	cfg.Proxies, cfg.Hops = cfg.Proxies[:1], []int{0, 1}
	if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), "--hops") {
		t.Errorf("a proxy in a chain sweep: %v", err)
	}
}

func FuzzParseProxy(f *testing.F) {
	for _, s := range []string{"n=tcp:127.0.0.1:1", `n=a {listen} "{upstream}" 'x y' \z`, "n=a {config:/x}", "=", `n="`, `n=\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProxy(s)
		if err != nil {
			return
		}
		if (p.Addr == nil) == (p.Command == nil) {
			t.Fatalf("%q: addr %v and command %q", s, p.Addr, p.Command)
		}
		if !proxyName.MatchString(p.Name) {
			t.Fatalf("%q: name %q", s, p.Name)
		}
		_ = p.Path().Name()
	})
}

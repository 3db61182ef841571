package relay_test

import (
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

// TestSysbenchThroughRelay runs sysbench's oltp_read_only against real
// MariaDB through every engine: real protocol traffic, many small
// request/response exchanges, no errors allowed.
func TestSysbenchThroughRelay(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB")
	}
	sysbench := peer.Require(t, "sysbench")
	db := mariadbtest.Shared(t)
	upstream, err := sockets.Parse("tcp:" + db.Addr)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []variant{
		{"goroutine", relay.Config{Engine: relay.EngineGoroutine}},
		{"epoll", relay.Config{Engine: relay.EngineEpoll, Stats: true}},
		{"splice", relay.Config{Engine: relay.EngineSplice}},
		{"epoll-spin-2-global", relay.Config{Engine: relay.EngineEpoll, Spin: true, Workers: 2, Lock: relay.LockGlobal}},
	} {
		t.Run(v.name, func(t *testing.T) {
			rr := startRelay(t, v.cfg, "tcp", upstream)
			var args []string
			for _, a := range db.SysbenchArgs(false) {
				switch {
				case strings.HasPrefix(a, "--mysql-host="):
					a = "--mysql-host=" + rr.Addr().Host
				case strings.HasPrefix(a, "--mysql-port="):
					a = "--mysql-port=" + strconv.Itoa(rr.Addr().Port)
				}
				args = append(args, a)
			}
			args = append([]string{"oltp_read_only"}, args...)
			args = append(args, "--tables=1", "--table-size="+strconv.Itoa(db.TableSize),
				"--threads=4", "--events=200", "--time=0", "run")
			out, err := exec.Command(sysbench, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("sysbench through %s: %v\n%s", v.name, err, out)
			}
			m := regexp.MustCompile(`transactions:\s+(\d+)`).FindSubmatch(out)
			if m == nil || string(m[1]) != "200" {
				t.Fatalf("sysbench: want 200 transactions:\n%s", out)
			}
			if !regexp.MustCompile(`ignored errors:\s+0 `).Match(out) || !regexp.MustCompile(`reconnects:\s+0 `).Match(out) {
				t.Fatalf("sysbench reported errors or reconnects:\n%s", out)
			}
			if s := rr.Stats(); s.Connections.Accepted < 4 || s.Directions.UpstreamToClient.Bytes == 0 {
				t.Errorf("stats after sysbench: %+v", s.Connections)
			}
		})
	}
}

// TestMariadbClientUnixToTCP: the mariadb command-line client over a UNIX
// socket the relay serves, relayed to MariaDB's TCP port.
func TestMariadbClientUnixToTCP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB")
	}
	client := peer.Require(t, "mariadb")
	db := mariadbtest.Shared(t)
	host, port, _ := net.SplitHostPort(db.Addr)
	for _, engine := range []relay.Engine{relay.EngineGoroutine, relay.EngineEpoll, relay.EngineSplice} {
		t.Run(string(engine), func(t *testing.T) {
			upstream, _ := sockets.Parse("TCP4:" + host + ":" + port + ",nodelay")
			listen, _ := sockets.Parse("UNIX-LISTEN:" + filepath.Join(shortTempDir(t), "mysql.sock") + ",fork")
			lb := newLogBuf()
			r, err := relay.New(listen, upstream, relay.Config{Engine: engine, Logf: lb.logf})
			if err != nil {
				t.Fatal(err)
			}
			rr := serveRelay(t, r)
			out, err := exec.Command(client, "--no-defaults", "--protocol=socket", "--socket="+rr.Addr().Path,
				"-u", db.User, "-p"+db.Password, "-N", "-B", "-e", "SELECT 6*7, COUNT(*) FROM sbtest1", db.DB).CombinedOutput()
			if err != nil {
				// The relay's own account of the connection says which
				// side ended it, and why.
				t.Fatalf("mariadb through UNIX->TCP relay: %v\n%s\nrelay log: %q\nrelay stats: %+v", err, out, lb.all(), rr.Stats().Connections)
			}
			if want := "42\t" + strconv.Itoa(db.TableSize); strings.TrimSpace(string(out)) != want {
				t.Fatalf("got %q, want %q", out, want)
			}
		})
	}
}

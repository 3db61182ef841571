package mysql

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// TestClientAgainstMariaDB runs every workload, in text and prepared mode,
// against a real MariaDB over TCP and over its UNIX socket.
func TestClientAgainstMariaDB(t *testing.T) {
	db := mariadbtest.Shared(t)
	for _, tr := range []struct{ network, addr string }{{"tcp", db.Addr}, {"unix", db.Socket}} {
		t.Run(tr.network, func(t *testing.T) {
			c := mysqltest.MustDial(t, Connect, tr.network, tr.addr, ClientConfig{User: db.User, Password: db.Password, DB: db.DB})
			if !c.MariaDB() || !strings.Contains(c.ServerVersion(), "MariaDB") {
				t.Errorf("server %q, MariaDB() = %v: want a MariaDB greeting", c.ServerVersion(), c.MariaDB())
			}
			if n, err := c.Query("SELECT c FROM sbtest1 WHERE id BETWEEN 1 AND 100"); err != nil || n != 100 {
				t.Fatalf("range select = %d rows, %v; want 100", n, err)
			}
			st, err := c.Prepare("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?")
			if err != nil {
				t.Fatal(err)
			}
			if n, err := st.Exec(11, 20); err != nil || n != 10 {
				t.Fatalf("prepared range select = %d rows, %v; want 10", n, err)
			}
			st.Close()
			for _, cmd := range Commands {
				for _, ps := range []bool{false, true} {
					w, err := NewWorkload(WorkloadConfig{Command: cmd, PS: ps, TableSize: db.TableSize,
						Query: "SELECT SUM(k) FROM sbtest1 WHERE id < 50"})
					if err != nil {
						t.Fatal(err)
					}
					s, err := w.Prepare(c)
					if err != nil {
						t.Fatalf("%s ps=%v: %v", cmd, ps, err)
					}
					rng := rand.New(rand.NewPCG(3, 4))
					for range 10 {
						if _, err := s.Event(rng); err != nil {
							t.Fatalf("%s ps=%v: %v", cmd, ps, err)
						}
					}
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := c.Query("SELECT * FROM no_such_table"); mysqltest.AsServerError(err) == nil || mysqltest.AsServerError(err).Code != 1146 {
				t.Errorf("missing table: %v, want ServerError 1146", err)
			}
			if err := c.Ping(); err != nil {
				t.Fatalf("ping after an error: %v", err)
			}
			if err := c.Quit(); err != nil {
				t.Fatal(err)
			}

			_, err = mysqltest.Dial(t, Connect, tr.network, tr.addr, ClientConfig{User: db.User, Password: "not-" + db.Password})
			se := mysqltest.AsServerError(err)
			if se == nil || se.Code != wire.ErAccessDenied {
				t.Fatalf("wrong password: %v, want ServerError 1045", err)
			}
			if strings.Contains(err.Error(), db.Password) {
				t.Fatalf("error %q reveals the password", err)
			}
		})
	}
}

// TestAuthSwitchByMariaDB offers caching_sha2_password first, as
// against a MySQL 8 greeting; MariaDB switches the client to native.
func TestAuthSwitchByMariaDB(t *testing.T) {
	db := mariadbtest.Shared(t)
	for _, network := range []string{"tcp", "unix"} {
		addr := db.Addr
		if network == "unix" {
			addr = db.Socket
		}
		nc := mysqltest.DialRaw(t, network, addr)
		c, err := connectOffering(nc, ClientConfig{User: db.User, Password: db.Password}, network == "unix", wire.PluginCachingSHA2)
		if err != nil {
			t.Fatalf("%s: %v", network, err)
		}
		if err := c.Ping(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCachingSHA2AgainstServer logs in with caching_sha2_password where the
// server has the plugin (MySQL-compatible builds); MariaDB 10.11 has none,
// and the mock covers the path instead (TestClientAgainstMock).
func TestCachingSHA2AgainstServer(t *testing.T) {
	db := mariadbtest.Shared(t)
	if db.SHA2User == "" {
		t.Skip("server has no caching_sha2_password plugin (MariaDB 10.11 ships none); covered against the mock")
	}
	for _, tr := range []struct{ network, addr string }{{"tcp", db.Addr}, {"unix", db.Socket}, {"tcp", db.Addr}} {
		c := mysqltest.MustDial(t, Connect, tr.network, tr.addr, ClientConfig{User: db.SHA2User, Password: db.Password})
		if err := c.Ping(); err != nil {
			t.Fatal(err)
		}
	}
}

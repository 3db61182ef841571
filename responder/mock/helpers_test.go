package mock

import (
	"errors"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/wire"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// mockServer is a Server listening on loopback TCP and a temp-dir UNIX
// socket for one test.
type mockServer struct {
	*Server
	tcpAddr string
	sock    string

	mu   sync.Mutex
	errs []error // what ServeConn returned, per connection
}

func startMock(t testing.TB, cfg ServerConfig) *mockServer {
	t.Helper()
	return startMockWith(t, cfg, nil)
}

// startMockWith lets tweak adjust the Server before it serves anything.
func startMockWith(t testing.TB, cfg ServerConfig, tweak func(*Server)) *mockServer {
	t.Helper()
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		tweak(srv)
	}
	m := &mockServer{Server: srv}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// A short directory: sun_path holds 108 bytes and t.TempDir() can be
	// longer.
	dir, err := os.MkdirTemp("", "hoplat-mysql-")
	if err != nil {
		t.Fatal(err)
	}
	m.sock = filepath.Join(dir, "mysqld.sock")
	ul, err := net.Listen("unix", m.sock)
	if err != nil {
		tl.Close()
		t.Fatal(err)
	}
	m.tcpAddr = tl.Addr().String()
	var wg sync.WaitGroup
	var connsMu sync.Mutex
	conns := map[net.Conn]bool{}
	for _, l := range []net.Listener{tl, ul} {
		wg.Go(func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				connsMu.Lock()
				conns[c] = true
				connsMu.Unlock()
				wg.Go(func() {
					err := srv.ServeConn(c)
					c.Close()
					connsMu.Lock()
					delete(conns, c)
					connsMu.Unlock()
					m.mu.Lock()
					m.errs = append(m.errs, err)
					m.mu.Unlock()
				})
			}
		})
	}
	t.Cleanup(func() {
		tl.Close()
		ul.Close()
		connsMu.Lock()
		for c := range conns {
			c.Close()
		}
		connsMu.Unlock()
		wg.Wait()
		os.RemoveAll(dir)
	})
	return m
}

// serveErrors returns the non-nil errors connections ended with so far.
func (m *mockServer) serveErrors() []error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []error
	for _, e := range m.errs {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// dial connects a Client to the mock (or any server) over network.
func dial(t testing.TB, network, addr string, cfg mysql.ClientConfig) (*mysql.Client, error) {
	t.Helper()
	nc, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return mysql.Connect(nc, cfg, network == "unix")
}

func mustDial(t testing.TB, network, addr string, cfg mysql.ClientConfig) *mysql.Client {
	t.Helper()
	c, err := dial(t, network, addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustPrepare builds the workload cfg describes and prepares its
// statements on c, failing t on either error.
func mustPrepare(t testing.TB, c *mysql.Client, cfg mysql.WorkloadConfig) (*mysql.Workload, *mysql.Session) {
	t.Helper()
	w, err := mysql.NewWorkload(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	return w, s
}

func asServerError(err error) *wire.ServerError {
	var se *wire.ServerError
	if errors.As(err, &se) {
		return se
	}
	return nil
}

func dialRaw(t testing.TB, network, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

package mock

import (
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
	"net"
	"testing"
)

// mockServer is a Server listening on loopback TCP and a temp-dir UNIX
// socket for one test.
type mockServer struct {
	*Server
	tcpAddr, sock string
	served        *mysqltest.Served
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
	s := mysqltest.Serve(t, srv.ServeConn)
	return &mockServer{Server: srv, tcpAddr: s.TCPAddr, sock: s.Sock, served: s}
}

// serveErrors returns the non-nil errors connections ended with so far.
func (m *mockServer) serveErrors() []error { return m.served.Errors() }

// dial connects a Client to the mock (or any server) over network.
func dial(t testing.TB, network, addr string, cfg mysql.ClientConfig) (*mysql.Client, error) {
	t.Helper()
	return mysql.Connect(dialRaw(t, network, addr), cfg, network == "unix")
}

func mustDial(t testing.TB, network, addr string, cfg mysql.ClientConfig) *mysql.Client {
	t.Helper()
	c, err := dial(t, network, addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func asServerError(err error) *wire.ServerError { return mysqltest.AsServerError(err) }

func dialRaw(t testing.TB, network, addr string) net.Conn { return mysqltest.DialRaw(t, network, addr) }

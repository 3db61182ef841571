package mysql

import (
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
	"github.com/hoplat/hoplat/responder/mock"
	"net"
	"testing"
)

// mockServer is a Server listening on loopback TCP and a temp-dir UNIX
// socket for one test.
type mockServer struct {
	*mock.Server
	tcpAddr, sock string
	served        *mysqltest.Served
}

func startMock(t testing.TB, cfg mock.ServerConfig) *mockServer {
	t.Helper()
	return startMockWith(t, cfg, nil)
}

// startMockWith lets tweak adjust the Server before it serves anything.
func startMockWith(t testing.TB, cfg mock.ServerConfig, tweak func(*mock.Server)) *mockServer {
	t.Helper()
	srv, err := mock.NewServer(cfg)
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
func dial(t testing.TB, network, addr string, cfg ClientConfig) (*Client, error) {
	t.Helper()
	return Connect(dialRaw(t, network, addr), cfg, network == "unix")
}

func mustDial(t testing.TB, network, addr string, cfg ClientConfig) *Client {
	t.Helper()
	c, err := dial(t, network, addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustPrepare builds the workload cfg describes and prepares its
// statements on c, failing t on either error.
func mustPrepare(t testing.TB, c *Client, cfg WorkloadConfig) (*Workload, *Session) {
	t.Helper()
	w, err := NewWorkload(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	return w, s
}

func asServerError(err error) *wire.ServerError { return mysqltest.AsServerError(err) }

func dialRaw(t testing.TB, network, addr string) net.Conn { return mysqltest.DialRaw(t, network, addr) }

// connectOffering is Connect with the first auth response computed for
// plugin, whatever the greeting announced.
func connectOffering(nc net.Conn, cfg ClientConfig, unixSocket bool, plugin string) (*Client, error) {
	c := &Client{pc: wire.NewPacketConn(nc)}
	if err := c.handshake(&cfg, unixSocket, plugin); err != nil {
		return nil, err
	}
	return c, nil
}

package mysqltest

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hoplat/hoplat/mysql/wire"
)

// Served is a server listening on loopback TCP and a temp-dir UNIX socket
// for one test.
type Served struct {
	TCPAddr string // host:port
	Sock    string // the UNIX socket's path

	mu   sync.Mutex
	errs []error // what serve returned, per connection
}

// Serve listens on loopback TCP and on a UNIX socket and serves each
// connection with serve on a goroutine of its own. When the test ends it
// closes the listeners and every open connection, waits for every
// goroutine it started, and removes the socket's directory.
func Serve(t testing.TB, serve func(io.ReadWriter) error) *Served {
	t.Helper()
	s := &Served{}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// A short directory: sun_path holds 108 bytes and t.TempDir() can be
	// longer.
	dir, err := os.MkdirTemp("", "hoplat-mysql-")
	if err != nil {
		tl.Close()
		t.Fatal(err)
	}
	s.Sock = filepath.Join(dir, "mysqld.sock")
	ul, err := net.Listen("unix", s.Sock)
	if err != nil {
		tl.Close()
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	s.TCPAddr = tl.Addr().String()
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
					err := serve(c)
					// Recorded before the close, so that a client that
					// has seen the connection end finds its error.
					s.mu.Lock()
					s.errs = append(s.errs, err)
					s.mu.Unlock()
					c.Close()
					connsMu.Lock()
					delete(conns, c)
					connsMu.Unlock()
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
	return s
}

// Errors returns the non-nil errors connections ended with so far: every
// connection whose end a client has seen is among them.
func (s *Served) Errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []error
	for _, e := range s.errs {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// DialRaw connects over network, closing the connection when the test
// ends.
func DialRaw(t testing.TB, network, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// AsServerError is the server's error err carries, or nil.
func AsServerError(err error) *wire.ServerError {
	var se *wire.ServerError
	if errors.As(err, &se) {
		return se
	}
	return nil
}

// ConnServer serves one connection until it ends: mock.Server does.
type ConnServer interface {
	ServeConn(io.ReadWriter) error
}

// Mock is a server served for one test (Serve): the server itself, its
// two addresses and what its connections ended with.
type Mock[S ConnServer] struct {
	Server S
	*Served
}

// StartMock builds a server from cfg with build (mock.NewServer), lets each
// tweak adjust it before it serves anything, and serves it until the test
// ends. It takes the constructor so that it need not import the mock,
// whose own tests use it.
func StartMock[C any, S ConnServer](t testing.TB, build func(C) (S, error), cfg C, tweaks ...func(S)) *Mock[S] {
	t.Helper()
	srv, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tweak := range tweaks {
		tweak(srv)
	}
	return &Mock[S]{Server: srv, Served: Serve(t, srv.ServeConn)}
}

// Connector starts a client's session over an open stream: mysql.Connect,
// whose unixSocket says the stream is a UNIX socket.
type Connector[C, K any] func(rw io.ReadWriter, cfg C, unixSocket bool) (K, error)

// Dial connects over network (DialRaw) and hands the stream to connect,
// telling it whether the stream is a UNIX socket. It takes the connector
// so that it need not import the client, whose own tests use it.
func Dial[C, K any](t testing.TB, connect Connector[C, K], network, addr string, cfg C) (K, error) {
	t.Helper()
	return connect(DialRaw(t, network, addr), cfg, network == "unix")
}

// MustDial is Dial failing t on an error.
func MustDial[C, K any](t testing.TB, connect Connector[C, K], network, addr string, cfg C) K {
	t.Helper()
	c, err := Dial(t, connect, network, addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

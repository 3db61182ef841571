package mysql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
	"github.com/hoplat/hoplat/responder"
	"github.com/hoplat/hoplat/responder/mock"
	"github.com/hoplat/hoplat/sockets"
)

func mustWorkload(t testing.TB, cfg WorkloadConfig) *Workload {
	t.Helper()
	w, err := NewWorkload(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestProtocolEventAllocs: the adapter adds nothing to the workload's
// zero allocations per event (AllocsPerRun counts the mock's goroutine
// too).
func TestProtocolEventAllocs(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{User: "u", Password: "p"})
	for _, wc := range []WorkloadConfig{
		{Command: CommandPointSelect, PS: true},
		{Command: CommandPointSelect},
		{Command: CommandOLTPRO, PS: true},
		{Command: CommandOLTPRW, PS: true},
		{Command: CommandOLTPWO},
		{Command: CommandPing},
	} {
		p := &Protocol{Client: ClientConfig{User: "u", Password: "p", DB: "sbtest"}, Workload: mustWorkload(t, wc)}
		s, err := p.Open(mysqltest.DialRaw(t, "tcp", m.TCPAddr), false)
		if err != nil {
			t.Fatal(err)
		}
		want := mustWorkload(t, wc).QueriesPerEvent()
		allocs := testing.AllocsPerRun(200, func() {
			if q, err := s.Event(); err != nil || q != want {
				t.Fatalf("Event() = (%d, %v), want (%d, nil)", q, err, want)
			}
		})
		if allocs != 0 {
			t.Errorf("%s ps=%v: %.2f allocations per event, want 0", wc.Command, wc.PS, allocs)
		}
	}
}

// TestProtocolErrors: a server's ERR reaches the report as the mysql
// client prints it, code and SQLSTATE first, and stays a *ServerError.
func TestProtocolErrors(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{User: "u", Password: "p"})
	blank := &Protocol{Client: ClientConfig{User: "u", Password: "p"},
		Workload: mustWorkload(t, WorkloadConfig{Command: CommandQuery, Query: " "})}
	s, err := blank.Open(mysqltest.DialRaw(t, "tcp", m.TCPAddr), false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Event()
	if se := mysqltest.AsServerError(err); se == nil || se.Code != 1065 || err.Error() != "ERROR 1065 (42000): Query was empty" {
		t.Errorf("Event() = %v, want ERROR 1065 (42000) as a *ServerError", err)
	}

	wrong := &Protocol{Client: ClientConfig{User: "u", Password: "wrong"},
		Workload: mustWorkload(t, WorkloadConfig{Command: CommandPing})}
	_, err = wrong.Open(mysqltest.DialRaw(t, "unix", m.Sock), true)
	if se := mysqltest.AsServerError(err); se == nil || se.Code != wire.ErAccessDenied ||
		!strings.Contains(err.Error(), `connect as "u": ERROR 1045 (28000): Access denied`) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("Open with a wrong password = %v, want ERROR 1045 (28000) after the user, no password", err)
	}
}

// TestProtocolConfigRedacted: a report's config never carries the
// password.
func TestProtocolConfigRedacted(t *testing.T) {
	for _, p := range []pingpong.Protocol{
		&Protocol{Client: ClientConfig{User: "u", Password: "s3cret", DB: "d"}, Workload: mustWorkload(t, WorkloadConfig{Command: CommandOLTPRO, PS: true})},
		&ConnectOnly{Client: ClientConfig{User: "u", Password: "s3cret"}},
	} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("s3cret")) || !bytes.Contains(b, []byte(`"password":"\u003credacted\u003e"`)) {
			t.Errorf("%T config %s: want the password redacted", p, b)
		}
	}
}

// TestProtocolThroughPingpong runs the client and the responder through
// the framework, as pongd and pingpong do, over TCP and UNIX under every
// I/O model, with the service time spent per statement.
func TestProtocolThroughPingpong(t *testing.T) {
	var statements atomic.Int64
	srv, err := mock.NewServer(mock.ServerConfig{User: "sbtest", Password: "sbtest", Service: func() {
		statements.Add(1)
		responder.Spend(time.Microsecond, responder.Busy)
	}})
	if err != nil {
		t.Fatal(err)
	}
	tcp, _ := sockets.Parse("tcp:127.0.0.1:0")
	unix, _ := sockets.Parse("unix:" + filepath.Join(t.TempDir(), "m.sock"))
	for _, model := range []pingpong.IOModel{pingpong.Netpoll, pingpong.Blocking, pingpong.Spin} {
		t.Run(model.String(), func(t *testing.T) {
			var mu sync.Mutex
			var logged []error
			ps := &responder.Server{Listen: []sockets.Addr{tcp, unix}, IO: model, Handler: mock.Handler{Server: srv},
				ErrorLog: func(err error) {
					mu.Lock()
					logged = append(logged, err)
					mu.Unlock()
				}}
			if err := ps.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer ps.Close()
			for _, a := range ps.Addrs() {
				before := statements.Load()
				rep, err := pingpong.Run(context.Background(), pingpong.Config{
					Target: a, IO: model, Time: 100 * time.Millisecond, Threads: []int{2},
					Protocol: &Protocol{Client: ClientConfig{User: "sbtest", Password: "sbtest", DB: "sbtest"},
						Workload: mustWorkload(t, WorkloadConfig{Command: CommandOLTPRO, PS: true})},
				})
				if err != nil {
					t.Fatalf("%s: %v", a, err)
				}
				r := rep.Results()[0]
				if r.Errors != 0 || r.Transactions == 0 || r.Queries != 16*r.Transactions || r.Connect == nil {
					t.Errorf("%s: %d transactions, %d queries, %d errors %q, connect %v", a, r.Transactions, r.Queries, r.Errors, r.ErrorSamples, r.Connect)
				}
				// BEGIN and COMMIT are statements too; a thread's last
				// event may have been cut short when the run ended.
				if served := statements.Load() - before; served < r.Queries {
					t.Errorf("%s: service spent %d times for %d queries", a, served, r.Queries)
				}
			}
			ps.Close()
			if len(logged) > 0 {
				t.Errorf("server logged %v", logged)
			}
		})
	}
}

// TestConnectOnly: each event is a login; the latency is set-up latency.
func TestConnectOnly(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{User: "u", Password: "p"})
	var dials atomic.Int64
	dial := func(ctx context.Context) (io.ReadWriteCloser, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, "unix", m.Sock)
	}
	target, _ := sockets.Parse("unix:" + m.Sock)
	rep, err := pingpong.Run(context.Background(), pingpong.Config{
		Target: target, Time: 100 * time.Millisecond,
		Protocol: &ConnectOnly{Client: ClientConfig{User: "u", Password: "p"}, Dial: dial},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results()[0]
	if r.Errors != 0 || r.Transactions == 0 || r.Transactions > dials.Load() || r.SQL {
		t.Errorf("%d connections timed of %d dialled, statements counted %v, %d errors %q", r.Transactions, dials.Load(), r.SQL, r.Errors, r.ErrorSamples)
	}
	if errs := m.Errors(); len(errs) > 0 {
		t.Errorf("mock: %v", errs)
	}

	wrong := &ConnectOnly{Client: ClientConfig{User: "u", Password: "x"}, Dial: dial}
	_, err = pingpong.Run(context.Background(), pingpong.Config{Target: target, Time: 100 * time.Millisecond, Protocol: wrong})
	if !errors.As(err, new(*wire.ServerError)) || !strings.Contains(err.Error(), "ERROR 1045 (28000)") {
		t.Errorf("wrong password: %v, want ERROR 1045 at set-up", err)
	}
}

// A stalled server (accepts, never greets) ends a connect-only event at
// its timeout instead of holding the worker.
func TestConnectOnlyTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		io.Copy(io.Discard, c)
		c.Close()
	}()
	s := &connectSession{timeout: 50 * time.Millisecond, p: &ConnectOnly{Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", ln.Addr().String())
	}}}
	_, err = s.Event()
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Event() against a silent server = %v, want a deadline error", err)
	}
	ln.Close()
	<-done
}

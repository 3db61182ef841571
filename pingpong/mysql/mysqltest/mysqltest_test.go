package mysqltest_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

func TestServe(t *testing.T) {
	served := mysqltest.Serve(t, func(rw io.ReadWriter) error {
		_, err := rw.Write([]byte("hi"))
		return err
	})
	for _, network := range []string{"tcp", "unix"} {
		addr := served.TCPAddr
		if network == "unix" {
			addr = served.Sock
		}
		b, err := io.ReadAll(mysqltest.DialRaw(t, network, addr))
		if err != nil || string(b) != "hi" {
			t.Errorf("%s: read %q, %v", network, b, err)
		}
	}
}

// AsServerError finds the server's error inside a wrapped one.
func ExampleAsServerError() {
	err := fmt.Errorf("query: %w", &wire.ServerError{Code: 1064, State: "42000", Message: "syntax"})
	fmt.Println(mysqltest.AsServerError(err).Code, mysqltest.AsServerError(io.EOF) == nil)
	// Output: 1064 true
}

// greeter writes its greeting to every connection and ends it.
type greeter struct{ hello string }

func (g *greeter) ServeConn(rw io.ReadWriter) error {
	_, err := io.WriteString(rw, g.hello)
	return err
}

// StartMock builds the server from its config, tweaks it before it
// serves, and Dial hands the connector each transport's stream, saying
// which is the UNIX socket.
func TestStartMockAndDial(t *testing.T) {
	build := func(hello string) (*greeter, error) { return &greeter{hello: hello}, nil }
	m := mysqltest.StartMock(t, build, "hi", func(g *greeter) { g.hello += "!" })
	read := func(rw io.ReadWriter, prefix string, unix bool) (string, error) {
		b, err := io.ReadAll(rw)
		return fmt.Sprint(prefix, string(b), unix), err
	}
	for _, tc := range []struct{ network, addr, want string }{
		{"tcp", m.TCPAddr, ">hi!false"},
		{"unix", m.Sock, ">hi!true"},
	} {
		if got := mysqltest.MustDial(t, read, tc.network, tc.addr, ">"); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.network, got, tc.want)
		}
	}
	if errs := m.Errors(); len(errs) != 0 {
		t.Errorf("connections ended with %v", errs)
	}
}

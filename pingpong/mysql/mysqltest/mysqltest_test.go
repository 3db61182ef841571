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

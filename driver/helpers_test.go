package driver

import (
	"testing"

	"github.com/hoplat/hoplat/sockets"
)

type addrT = sockets.Addr

func mustAddr(t testing.TB, s string) sockets.Addr {
	t.Helper()
	a, err := sockets.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

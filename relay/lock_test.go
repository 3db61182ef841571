package relay_test

import (
	"fmt"
	"testing"

	"github.com/hoplat/hoplat/relay"
)

// A lock name from a command line; "" takes the default.
func ExampleParseLock() {
	l, err := relay.ParseLock("global")
	fmt.Println(l, err)
	_, err = relay.ParseLock("big")
	fmt.Println(err)
	// Output:
	// global <nil>
	// relay: lock "big": want none, conn or global
}

// Every listed lock parses back to itself; names are exact.
func TestParseLock(t *testing.T) {
	for _, l := range relay.Locks {
		got, err := relay.ParseLock(string(l))
		if err != nil || got != l {
			t.Errorf("ParseLock(%q) = %q, %v", l, got, err)
		}
	}
	if l, err := relay.ParseLock(""); err != nil || l != relay.LockNone {
		t.Errorf(`ParseLock("") = %q, %v; want none`, l, err)
	}
	for _, bad := range []string{"None", "giant", " conn"} {
		if _, err := relay.ParseLock(bad); err == nil {
			t.Errorf("ParseLock(%q) accepted", bad)
		}
	}
}

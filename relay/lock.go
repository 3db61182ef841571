package relay

import (
	"fmt"

	"github.com/hoplat/hoplat/roles"
)

// Locks lists every Lock, in the order help texts name them.
var Locks = []Lock{LockNone, LockConn, LockGlobal}

// ParseLock returns the Lock named s; "" is the default, LockNone.
func ParseLock(s string) (Lock, error) {
	if s == "" {
		return LockNone, nil
	}
	for _, l := range Locks {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("relay: lock %q: want %s", s, LockNames())
}

// LockNames is "none, conn or global": the Locks for a help text or error.
func LockNames() string { return roles.OrList(Locks) }

//go:build !linux

package hosts

import (
	"context"
	"errors"
	"fmt"
)

// Network namespaces are Linux's (network_namespaces(7)); elsewhere only
// local and ssh hosts work.

func netnsArgv(ns string, argv []string) []string {
	return append([]string{"ip", "netns", "exec", ns}, argv...)
}

func upNetNS(ctx context.Context, tb *Testbed) error {
	for _, name := range tb.order {
		switch h := tb.hosts[name]; h.Kind {
		case NetNS:
			return fmt.Errorf("hosts: netns %s: %w", h.Name, errors.ErrUnsupported)
		case Local:
			h.addr = "127.0.0.1"
		default:
			h.addr = h.Addr
		}
	}
	return nil
}

func cleanStale(ctx context.Context, tb *Testbed) error { return nil }

// pidAlive cannot tell here; a stale run's leftovers are kept.
func pidAlive(pid int) bool { return true }

// creatorPID: nothing is stale where nothing can be checked.
func creatorPID(name, sep string) (int, bool) { return 0, false }

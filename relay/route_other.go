//go:build !linux

package relay

import (
	"errors"
	"fmt"
)

// The MySQL router runs on the epoll engine's loops.
func newRouteEngine(r *Relay) (engine, error) {
	return nil, fmt.Errorf("relay: route %s: %w", r.cfg.Route, errors.ErrUnsupported)
}

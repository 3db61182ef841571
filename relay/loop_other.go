//go:build !linux

package relay

import (
	"errors"
	"fmt"
)

// The event-loop engines need epoll(7) and splice(2).
func newLoopEngine(r *Relay) (engine, error) {
	return nil, fmt.Errorf("relay: engine %s: %w", r.cfg.Engine, errors.ErrUnsupported)
}

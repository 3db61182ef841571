//go:build !linux

package relay

import (
	"errors"
	"fmt"
)

// DefaultSockmapConns sizes the sockmap engine's maps when Config.MaxConns
// is 0.
const DefaultSockmapConns = 4096

// The sockmap engine needs Linux's BPF sockmap (BPF_MAP_TYPE_SOCKMAP and
// sk_skb programs).
func newSockmapEngine(r *Relay) (engine, error) {
	return nil, fmt.Errorf("relay: engine %s: %w", r.cfg.Engine, errors.ErrUnsupported)
}

// CheckSockmap reports whether this kernel and process can run the
// sockmap engine: never, off Linux.
func CheckSockmap() error {
	return fmt.Errorf("relay: engine sockmap: %w", errors.ErrUnsupported)
}

//go:build !linux

package sockets

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// DialNamespace needs Linux's network namespaces.
func DialNamespace(ctx context.Context, nsPath, network, address string) (net.Conn, error) {
	return nil, fmt.Errorf("sockets: dial %s in %s: %w", address, nsPath, errors.ErrUnsupported)
}

//go:build !linux

package sockets

// Pipe needs Linux's raw descriptors.
func Pipe() (r, w *FD, err error) { return nil, nil, errNoRaw }

// SocketPair needs Linux's raw descriptors.
func SocketPair(m Mode) (*FD, *FD, error) { return nil, nil, errNoRaw }

//go:build !linux

package sockets

import (
	"fmt"
	"syscall"
	"time"
)

type stampSys struct{}

// EnableRXTimestamps needs Linux's SO_TIMESTAMPING.
func (f *FD) EnableRXTimestamps() error { return errNoRaw }

// Stamp needs Linux's receive stamps.
func (b *StampBuf) Stamp() time.Time { return time.Time{} }

// ReadStamped needs Linux's SO_TIMESTAMPING.
func (f *FD) ReadStamped(p []byte, b *StampBuf) (int, time.Time, error) {
	return 0, time.Time{}, errNoRaw
}

// ReadStampedHeld needs Linux's SO_TIMESTAMPING.
func (f *FD) ReadStampedHeld(p []byte, b *StampBuf) (int, time.Time, error) {
	return 0, time.Time{}, errNoRaw
}

// StampedReader needs Linux's SO_TIMESTAMPING.
type StampedReader struct{}

// NewStampedReader needs Linux's SO_TIMESTAMPING.
func NewStampedReader(c syscall.Conn) (*StampedReader, error) {
	return nil, fmt.Errorf("sockets: stamped reader for %T: %w", c, errNoRaw)
}

// Read needs Linux's SO_TIMESTAMPING.
func (r *StampedReader) Read(p []byte) (int, time.Time, error) { return 0, time.Time{}, errNoRaw }

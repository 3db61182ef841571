//go:build !linux

package sockets

import (
	"errors"
	"fmt"
)

type batch struct{}

// NewBatch needs Linux's io_uring.
func NewBatch(size int) (*Batch, error) {
	return nil, fmt.Errorf("sockets: batch: %w", errors.ErrUnsupported)
}

func (b *Batch) Close() error                   { return nil }
func (b *Batch) Len() int                       { return 0 }
func (b *Batch) Cap() int                       { return 0 }
func (b *Batch) Reset()                         {}
func (b *Batch) Recv(fd int, p []byte) BatchOp  { panic("sockets: Batch is full") }
func (b *Batch) Send(fd int, p []byte) BatchOp  { panic("sockets: Batch is full") }
func (b *Batch) Do() error                      { return nil }
func (b *Batch) Result(op BatchOp) (int, error) { return 0, errors.ErrUnsupported }

func (b *Batch) RecvStamped(fd int, p []byte, sb *StampBuf) BatchOp { panic("sockets: Batch is full") }

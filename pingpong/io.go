package pingpong

import (
	"context"

	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/sockets"
)

// IOModel is how the client's workers wait for the kernel; package iomodel
// holds it, shared with the responder.
type IOModel = iomodel.Model

// The I/O models, as iomodel names them.
const (
	Netpoll  = iomodel.Netpoll
	Blocking = iomodel.Blocking
	Spin     = iomodel.Spin
	Auto     = iomodel.Auto
)

// AutoHeldMax and AutoPerCPU bound what Auto holds blocking (iomodel).
const (
	AutoHeldMax = iomodel.AutoHeldMax
	AutoPerCPU  = iomodel.AutoPerCPU
)

// ParseIO reads "auto", "netpoll", "blocking" or "spin"; "" is auto.
func ParseIO(s string) (IOModel, error) { return iomodel.Parse(s) }

// conn is a worker's connection under its I/O model.
type conn = iomodel.Conn

type netConn = iomodel.NetConn

func dial(ctx context.Context, a sockets.Addr, m IOModel) (conn, error) {
	return iomodel.Dial(ctx, a, m)
}

func pinned(m IOModel, cpus []int, i int) (cpu int, unlock func(), err error) {
	return iomodel.Pin(m, cpus, i)
}

func autoIO(n, cpus int) iomodel.Choice { return iomodel.Choose(n, cpus) }

func cpusFor(list []int) int { return iomodel.CPUsFor(list) }

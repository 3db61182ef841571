//go:build !linux

package tracer

import (
	"context"
	"time"
)

// Tracer is only implemented on Linux.
type Tracer struct{}

// Open reports ErrKernel: BPF tracing is Linux's.
func Open(Config) (*Tracer, error) { return nil, ErrKernel }

func (*Tracer) Follow(int, string) error                         { return ErrKernel }
func (*Tracer) Unfollow(int) error                               { return ErrKernel }
func (*Tracer) FollowThread(int, string) error                   { return ErrKernel }
func (*Tracer) Start() error                                     { return ErrKernel }
func (*Tracer) Stop() (*Trace, error)                            { return nil, ErrKernel }
func (*Tracer) Calibrate(context.Context) (time.Duration, error) { return 0, ErrKernel }
func (*Tracer) PerEvent() time.Duration                          { return 0 }
func (*Tracer) Close() error                                     { return nil }

// Floor is only implemented on Linux.
type Floor struct{}

func (*Tracer) Floor() (*Floor, error) { return nil, ErrKernel }
func (*Floor) Attach() error           { return ErrKernel }
func (*Floor) Detach()                 {}
func (*Floor) Close() error            { return nil }

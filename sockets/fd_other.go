//go:build !linux

package sockets

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
)

var errNoRaw = fmt.Errorf("sockets: raw sockets on this platform: %w", errors.ErrUnsupported)

// FD is a socket descriptor outside Go's netpoller; Linux only.
type FD struct{}

func (f *FD) Sysfd() int                              { return -1 }
func (f *FD) Mode() Mode                              { return Nonblocking }
func (f *FD) SetMode(Mode) error                      { return errNoRaw }
func (f *FD) Read([]byte) (int, error)                { return 0, errNoRaw }
func (f *FD) Write([]byte) (int, error)               { return 0, errNoRaw }
func (f *FD) Shutdown(How) error                      { return errNoRaw }
func (f *FD) Interrupt()                              {}
func (f *FD) Close() error                            { return nil }
func (f *FD) Accept() (*FD, error)                    { return nil, errNoRaw }
func (f *FD) ConnectResult() error                    { return errNoRaw }
func (f *FD) SetNoDelay(bool) error                   { return errNoRaw }
func (f *FD) TCPInfo() (TCPInfo, error)               { return TCPInfo{}, errNoRaw }
func ReadTCPInfo(syscall.Conn) (TCPInfo, error)       { return TCPInfo{}, errNoRaw }
func Detach(c net.Conn, m Mode) (*FD, error)          { c.Close(); return nil, errNoRaw }
func DialFD(context.Context, Addr, Mode) (*FD, error) { return nil, errNoRaw }
func RawListen(a Addr) (*FD, Addr, error)             { return nil, a, errNoRaw }
func RawDial(Addr) (*FD, error)                       { return nil, errNoRaw }

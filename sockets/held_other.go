//go:build !linux

package sockets

func (f *FD) SetHeld() error                { return errNoRaw }
func (f *FD) ReadHeld([]byte) (int, error)  { return 0, errNoRaw }
func (f *FD) WriteHeld([]byte) (int, error) { return 0, errNoRaw }

//go:build !linux

package sockets

func (f *FD) SetHeld() error                { return errNoRaw }
func (f *FD) ReadHeld([]byte) (int, error)  { return 0, errNoRaw }
func (f *FD) WriteHeld([]byte) (int, error) { return 0, errNoRaw }

// Held is a held FD (held_linux.go); on this platform none can be made.
type Held FD

func (h *Held) FD() *FD                   { return (*FD)(h) }
func (h *Held) Read([]byte) (int, error)  { return 0, errNoRaw }
func (h *Held) Write([]byte) (int, error) { return 0, errNoRaw }
func (h *Held) Close() error              { return (*FD)(h).Close() }
func (h *Held) Interrupt()                { (*FD)(h).Interrupt() }

package tailbuf

import (
	"strings"
	"sync"
)

// Buffer is an io.Writer that keeps the last bytes (as many as New was given) written to it. It is
// safe for concurrent use: os/exec copies a child's output from a goroutine
// of its own while the owner may read String.
type Buffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// New returns a Buffer that keeps the last max bytes.
func New(max int) *Buffer { return &Buffer{max: max} }

// Write appends b, dropping the oldest bytes beyond the Buffer's size. It
// never fails.
func (t *Buffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// String is what was kept, on one line for an error message: blanks at
// either end trimmed, line breaks shown as " | ", and "(empty)" when the
// process said nothing.
func (t *Buffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return "(empty)"
	}
	return strings.ReplaceAll(s, "\n", " | ")
}

package echo

import (
	"testing"
)

// loop is an in-memory connection whose peer echoes: what the client
// writes, it reads back.
type loop struct {
	buf []byte
	n   int
}

func (l *loop) Write(p []byte) (int, error) { l.n = copy(l.buf, p); return len(p), nil }
func (l *loop) Read(p []byte) (int, error)  { n := copy(p, l.buf[:l.n]); l.n = 0; return n, nil }

// BenchmarkSession is the codec's own cost per round trip, without the
// kernel: building the request, checking the reply.
func BenchmarkSession(b *testing.B) {
	s, _ := Protocol{}.Open(&loop{buf: make([]byte, DefaultSize)}, false)
	b.SetBytes(2 * DefaultSize)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Event(); err != nil {
			b.Fatal(err)
		}
	}
}

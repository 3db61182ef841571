package echo

import (
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
)

// BenchmarkSession is the codec's own cost per round trip, without the
// kernel: building the request, checking the reply.
func BenchmarkSession(b *testing.B) {
	s, _ := Protocol{}.Open(&wiretest.Echo{Buf: make([]byte, DefaultSize)}, false)
	b.SetBytes(2 * DefaultSize)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Event(); err != nil {
			b.Fatal(err)
		}
	}
}

package echo

import (
	"testing"

	"github.com/hoplat/hoplat/echo/frame"
)

// sink is an in-memory peer that keeps the last write.
type sink struct {
	buf []byte
	n   int
}

func (l *sink) Write(p []byte) (int, error) { l.n = copy(l.buf, p); return len(p), nil }

// BenchmarkHandlerReply is the responder's framing cost per request.
func BenchmarkHandlerReply(b *testing.B) {
	req := frame.New(64)
	var out sink
	out.buf = make([]byte, len(req))
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	for b.Loop() {
		if n, err := (Handler{}).reply(&out, req); err != nil || n != len(req) {
			b.Fatal(n, err)
		}
	}
}

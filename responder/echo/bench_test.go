package echo

import (
	"testing"

	"github.com/hoplat/hoplat/echo/frame"
	"github.com/hoplat/hoplat/internal/wiretest"
)

// BenchmarkHandlerReply is the responder's framing cost per request.
func BenchmarkHandlerReply(b *testing.B) {
	req := frame.New(64)
	out := &wiretest.Echo{Buf: make([]byte, len(req))}
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	for b.Loop() {
		if n, err := (Handler{}).reply(out, req); err != nil || n != len(req) {
			b.Fatal(n, err)
		}
	}
}

package driver

import (
	"bytes"
	"sync"

	"github.com/hoplat/hoplat/driver/event"
)

// lineWriter hands each whole line written to it, without its newline, to
// line. A child's output and a library's log reach the progress through
// it as events.
type lineWriter struct {
	mu   sync.Mutex
	line func([]byte)
	buf  []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.line(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	return len(p), nil
}

// logTo is a writer for a library's own lines (hosts' steps) that hands
// each to sink as an event.Line.
func logTo(sink event.Sink) *lineWriter {
	return &lineWriter{line: func(l []byte) { sink.Event(event.Line{Text: string(l)}) }}
}

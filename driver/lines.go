package driver

import (
	"bytes"
	"sync"

	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/hosts"
)

// lineWriter hands each whole line written to it, without its newline, to
// line. A child's output reaches the progress through it as events.
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

// hostSteps hands each of package hosts' steps to sink as an
// event.HostStep.
func hostSteps(sink event.Sink) func(hosts.Step) {
	return func(s hosts.Step) { sink.Event(event.HostStep{Step: s}) }
}

// nodeSteps hands each of package cluster's steps to sink as an
// event.NodeStep.
func nodeSteps(sink event.Sink) func(cluster.Step) {
	return func(s cluster.Step) { sink.Event(event.NodeStep{Step: s}) }
}

package relay

import (
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// acceptGate is whether a thread that watches the listener in its own
// epoll set (an event loop, the sockmap engine's thread) is accepting.
// The thread takes the listener out of its set when accept4 runs out of
// fds (pause) and puts it back once a connection closes or a timeout
// passes (resume); serve asks it to stop for good (requestStop, then
// wait on stopped) before it closes the listener, so that no thread ever
// accepts on a descriptor number the kernel may already have reused.
// Only the owning thread calls pause, resume, mayResume and ack.
type acceptGate struct {
	stopping atomic.Bool
	stopped  chan struct{} // closed once the listener is out of the set for good
	once     sync.Once
	paused   bool // the listener is out of the set
}

func newAcceptGate() acceptGate { return acceptGate{stopped: make(chan struct{})} }

// requestStop is serve's side; the thread answers with ack once it has
// woken and seen it.
func (g *acceptGate) requestStop() { g.stopping.Store(true) }

func (g *acceptGate) stopRequested() bool { return g.stopping.Load() }

// mayResume reports whether the listener is out of the set for want of
// fds and may go back.
func (g *acceptGate) mayResume() bool { return g.paused && !g.stopping.Load() }

// pause takes listener fd ln out of epoll set epfd, which a
// level-triggered listener would otherwise wake at once again.
func (g *acceptGate) pause(epfd, ln int) {
	unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, ln, nil)
	g.paused = true
}

// resume puts the listener back with add, the owner's EPOLL_CTL_ADD.
func (g *acceptGate) resume(add func() error) {
	if add() == nil {
		g.paused = false
	}
}

// ack takes the listener out of epfd for good (unless it is out already
// or the set is gone) and tells serve so, once.
func (g *acceptGate) ack(epfd, ln int) {
	g.once.Do(func() {
		if epfd >= 0 && !g.paused {
			unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, ln, nil)
		}
		g.paused = true
		close(g.stopped)
	})
}

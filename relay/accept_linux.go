package relay

import (
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/sockets"
)

// acceptGate is whether a thread that watches the listener in its own
// epoll set (an event loop, the sockmap engine's thread) is accepting.
// The thread takes the listener out of its set when accept4 runs out of
// fds (pause) and puts it back once a connection closes or a timeout
// passes (resume); serve asks it to stop for good (stopAccepting) before
// it closes the listener, so that no thread ever accepts on a descriptor
// number the kernel may already have reused. Only the owning thread calls
// pause, resume, mayResume, answerStop and ack.
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

// answerStop is the owning thread's check after each wait: once serve has
// asked it to stop it takes the listener out of epfd for good (ack) and
// reports true, and the thread returns when its last connection is gone.
func (g *acceptGate) answerStop(epfd, ln int) bool {
	if !g.stopping.Load() {
		return false
	}
	g.ack(epfd, ln)
	return true
}

// An acceptThread is a thread that watches the listener in its own epoll
// set through an acceptGate: an event loop, the sockmap engine's thread.
type acceptThread interface {
	gate() *acceptGate
	wakeup() // makes the thread's epoll_wait return
}

// stopAccepting is serve's half of the shutdown order, the same for every
// engine whose threads watch the listener: ask each thread to stop and
// wake it, wait until every one has taken the listener out of its epoll
// set, and only then close the listener. A thread must never accept4 on a
// descriptor number the kernel may already have given to something else.
func stopAccepting(ln *sockets.FD, threads ...acceptThread) {
	for _, t := range threads {
		t.gate().requestStop()
		t.wakeup()
	}
	for _, t := range threads {
		<-t.gate().stopped
	}
	if hook := testHookStopAccepting.Load(); hook != nil {
		(*hook)(ln)
	}
	ln.Close()
}

// testHookStopAccepting, when set, runs as stopAccepting is about to close
// ln, every thread having answered: the shutdown order's test looks at the
// epoll sets then. Atomic, since a relay of an earlier test may still be
// shutting down when a test sets it.
var testHookStopAccepting atomic.Pointer[func(ln *sockets.FD)]

// dispatch hands one epoll_wait's events, in the kernel's order, to the
// thread that owns the set: the listener's readiness to accept, the wake
// eventfd's drained here, every other event to event.
func dispatch(events []unix.EpollEvent, wake int, accept func(), event func(*unix.EpollEvent)) {
	for i := range events {
		ev := &events[i]
		switch ev.Fd {
		case idListener:
			accept()
		case idWake:
			drainWake(wake)
		default:
			event(ev)
		}
	}
}

package relay

// HoldLoops makes the epoll and splice engines' loops call hold before
// every wait for events, so that a test can keep them from waiting while
// it makes several sockets readable; ok is false for other engines. Call
// it before Serve.
func HoldLoops(r *Relay, hold func()) (ok bool) {
	e, ok := r.eng.(*loopEngine)
	if ok {
		e.waitHook = hold
	}
	return ok
}

package relay

// IdleOut is how many EPOLLOUT events the epoll or splice engine's loops
// took that found nothing to write; ok is false for other engines. Read it
// after Stop.
func IdleOut(r *Relay) (n int64, ok bool) {
	e, ok := r.eng.(*loopEngine)
	if !ok {
		return 0, false
	}
	for _, l := range e.loops {
		n += l.idleOut
	}
	return n, true
}

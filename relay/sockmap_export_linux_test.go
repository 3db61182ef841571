package relay

// SockmapEvidence is what the sockmap engine's thread has done so far: the
// epoll wake-ups that carried a connection's event, the bytes user-space
// copiers moved, and the thread's id. ok is false for other engines.
func SockmapEvidence(r *Relay) (connWakeups, userBytes, tid int64, ok bool) {
	e, ok := r.eng.(*sockmapEngine)
	if !ok {
		return 0, 0, 0, false
	}
	return e.connWakeups.Load(), e.userBytes.Load(), e.loopTid.Load(), true
}

// SockmapPauses is how many times flow control paused a direction.
func SockmapPauses(r *Relay) int64 {
	if e, ok := r.eng.(*sockmapEngine); ok {
		return e.pausedDirs.Load()
	}
	return 0
}

// SockmapCaughtUp is how many bytes paused directions moved in user space.
func SockmapCaughtUp(r *Relay) int64 {
	if e, ok := r.eng.(*sockmapEngine); ok {
		return e.caughtUp.Load()
	}
	return 0
}

// SockmapSeen is what the verdict's guard cut off in closed connections:
// bytes it had seen already, and skbs it could not cut.
func SockmapSeen(r *Relay) (dup, trimFailed int64) {
	if e, ok := r.eng.(*sockmapEngine); ok {
		return r.counters.repeated[0].Load() + r.counters.repeated[1].Load(), e.trimFailed.Load()
	}
	return 0, 0
}

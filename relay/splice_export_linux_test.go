package relay

// SplicePipesGrown is how many of the splice engine's pipes grew to the
// stream size, and that size (0: no growth on this kernel's
// pipe-max-size); ok is false for other engines.
func SplicePipesGrown(r *Relay) (grown int64, size int, ok bool) {
	e, ok := r.eng.(*loopEngine)
	if !ok || !e.splice {
		return 0, 0, false
	}
	return e.grown.Load(), e.streamPipe, true
}

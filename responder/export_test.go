package responder

import "github.com/hoplat/hoplat/iomodel"

// SetAutoHeldMax lowers how many connections an Auto server holds
// blocking.
func (s *Server) SetAutoHeldMax(n int) { s.heldMax = n }

// AutoCounts is how many connections an Auto server holds blocking now
// and how many it has served under each model.
func (s *Server) AutoCounts() (held int, served map[iomodel.Model]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	served = map[iomodel.Model]int{}
	for m, n := range s.served {
		if n > 0 {
			served[iomodel.Model(m)] = n
		}
	}
	return s.held, served
}

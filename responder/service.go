package responder

import (
	"fmt"
	"time"
)

// ServiceMode is how a responder spends its service time.
type ServiceMode uint8

const (
	// Busy burns CPU until the time has passed, as a query does; the
	// default, since it also keeps the responder's thread from sleeping
	// and waking, which would add a scheduler wake-up to every reply.
	Busy ServiceMode = iota
	// Sleep parks the goroutine, modelling a backend that waits on I/O.
	Sleep
)

func (m ServiceMode) String() string {
	if m == Sleep {
		return "sleep"
	}
	return "busy"
}

// ParseServiceMode reads "busy" or "sleep".
func ParseServiceMode(s string) (ServiceMode, error) {
	switch s {
	case "busy", "":
		return Busy, nil
	case "sleep":
		return Sleep, nil
	}
	return Busy, fmt.Errorf("responder: service mode %q: want busy or sleep", s)
}

// Service is the time a responder spends before each reply, to model a
// backend's own cost. The zero value spends nothing.
type Service struct {
	Time time.Duration
	Mode ServiceMode
}

// Spend spends s.Time in s.Mode. The MySQL responder calls it per
// statement, the echo responder per request. It does not allocate.
func (s Service) Spend() { Spend(s.Time, s.Mode) }

// Spend spends d: busy-waiting on the monotonic clock, or sleeping.
func Spend(d time.Duration, m ServiceMode) {
	if d <= 0 {
		return
	}
	if m == Sleep {
		time.Sleep(d)
		return
	}
	start := time.Now()
	for time.Since(start) < d {
	}
}

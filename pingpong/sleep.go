package pingpong

import (
	"time"

	"github.com/hoplat/hoplat/affinity"
)

// preciseSleep sleeps d in nanosleep(2), late by the timer slack only;
// where that is unsupported, in the runtime's timers, whose precision
// varies by platform, and the pacer spins only the last slack before a
// send.
func preciseSleep(d time.Duration) {
	if affinity.Nanosleep(d) != nil {
		time.Sleep(d)
	}
}

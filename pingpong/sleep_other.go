//go:build !linux

package pingpong

import "time"

// preciseSleep falls back to the runtime's timers, whose precision varies
// by platform; the pacer spins only the last slack before a send.
func preciseSleep(d time.Duration) { time.Sleep(d) }

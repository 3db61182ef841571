package pingpong

import (
	"syscall"
	"time"
)

// preciseSleep sleeps d in nanosleep(2), late by the timer slack only. The
// goroutine holds its thread meanwhile, as a blocking read does; the
// runtime hands the P to another thread if the sleep lasts.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

package osthread

import "runtime"

// Run calls f on a new goroutine locked to its OS thread (runtime.LockOSThread)
// and returns f's value and error. f's restored says whether it left the
// thread as it found it: then the thread goes back to the runtime; else the
// goroutine exits still locked, and the runtime ends the thread instead of
// running other goroutines in the state f left it in.
func Run[T any](f func() (v T, err error, restored bool)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		v, err, restored := f()
		if restored {
			runtime.UnlockOSThread()
		}
		done <- result{v, err}
	}()
	r := <-done
	return r.v, r.err
}

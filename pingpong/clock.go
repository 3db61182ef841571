package pingpong

import "time"

// base anchors the client's clock. time.Since on a time that carries a
// monotonic reading reads only the monotonic clock (one vDSO
// clock_gettime(CLOCK_MONOTONIC)), where time.Now reads the wall clock as
// well: BenchmarkClock measures both.
var base = time.Now()

// now returns monotonic nanoseconds since base: the one clock read taken
// per send and per receive.
func now() int64 { return int64(time.Since(base)) }

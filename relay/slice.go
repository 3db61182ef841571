package relay

import (
	"fmt"
	"time"

	"github.com/hoplat/hoplat/affinity"
)

// DefaultSlice is the time slice an event loop's thread asks the kernel for
// when Config names none: longer than the kernel's default (0.7 ms times
// 1 + log2 of the CPUs), so that a loop woken by its client's send waits
// for the client to block in its read instead of preempting it there. On
// one CPU a round trip through a relay needs four context switches: client,
// relay, server, relay. With the kernel's default slice the woken loop
// preempts its waker, which runs again only to block: a fifth switch on
// part of the round trips, each a whole switch between processes where PTI
// runs without PCID. A longer slice removes it, as SCHED_BATCH would, and
// unlike SCHED_BATCH it also shortens the loop's wait beside a busy task on
// the same CPU (docs/measurements.md, "Time slice"). A task
// that has run past its share is still preempted by the woken loop; only
// one that has not (the waker, mid-send) is left to finish.
const DefaultSlice = 3 * time.Millisecond

// setSlice gives the calling loop thread Config.Slice and says what the
// kernel granted, for the stats (SnapshotConfig.Slice).
func setSlice(c Config) string {
	want := c.Slice
	switch {
	case want == 0:
		want = DefaultSlice
	case want < 0:
		return "kernel default"
	}
	got, err := affinity.SetThreadSlice(want)
	switch {
	case err != nil:
		return fmt.Sprintf("kernel default (%v)", err)
	case got == 0:
		return "kernel default (this kernel keeps no custom slice: Linux 6.12 or later does)"
	}
	return got.String()
}

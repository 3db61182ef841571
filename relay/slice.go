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
// preempted its waker, which ran again only to block: 4.66 switches per
// round trip (/proc/stat's ctxt over a sockperf run); with this one, 4.16.
// On a 2-vCPU AMD EPYC guest (PTI without PCID, where a switch between
// processes costs about 6 µs), client, relay and server on CPU 0, sockperf
// 64 B: the epoll engine's added p50 fell from 33.0-33.3 µs to 27.6-28.3,
// as SCHED_BATCH's would, and beside a busy loop on the same CPU its p99
// fell from 1.8 ms to 0.5 ms, where SCHED_BATCH's did not move. A task
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

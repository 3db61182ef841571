package affinity

import "time"

// Slice bounds: the kernel takes a fair task's slice request between 0.1 ms
// and 100 ms (sched_setattr(2), sched_runtime; Linux 6.12).
const (
	MinSlice = 100 * time.Microsecond
	MaxSlice = 100 * time.Millisecond
)

package tracer

import "time"

// Trace is what one Start..Stop window recorded.
type Trace struct {
	// Config is the tracer's, with every Follow added.
	Config Config
	// Events, CPU by CPU, each CPU's in the order it recorded them
	// (Assemble sorts them by time).
	Events []Event
	// Lost counts records a CPU made past its slots; Dropped the records past
	// Config.MaxEvents; Bad the records Decode refused or stamped before
	// the window (left by a program still running at a Stop). A lost record can
	// break a request's chain of wake-ups, which then shows as SegOther.
	Lost, Dropped, Bad uint64
	// PerEvent is the tracer's calibrated cost per record (0 if Calibrate
	// was not run).
	PerEvent time.Duration
	// Wakeup is the tracepoint KindWaking came from: sched_waking, or
	// sched_wakeup on a kernel without it.
	Wakeup string
	// Start and End are the window's bounds on the events' clock.
	Start, End uint64

	tgids map[int]int // tid → tgid, built by Component
}

// Requests assembles the trace's requests (see Assemble), with the
// calibrated cost taken off.
func (tr *Trace) Requests() []Request {
	return Assemble(tr.Config, tr.Events, tr.PerEvent)
}

// Component names the component of a task seen in the trace (a Segment's
// Tid, By or Behind): its Config.Threads entry, else its process's
// Config.Components entry; "" for a task the trace does not follow (idle,
// another tenant of the machine, a kernel thread).
func (tr *Trace) Component(tid int) string {
	if c, ok := tr.Config.Threads[tid]; ok {
		return c
	}
	if tr.tgids == nil {
		tr.tgids = map[int]int{}
		for i := range tr.Events {
			e := &tr.Events[i]
			tr.tgids[int(e.Tid)] = int(e.Tgid)
			if e.Tid2 != 0 {
				tr.tgids[int(e.Tid2)] = int(e.Tgid2)
			}
		}
	}
	if tgid, ok := tr.tgids[tid]; ok && tid != 0 {
		return tr.Config.Components[tgid]
	}
	return ""
}

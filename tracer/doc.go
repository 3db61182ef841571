// Package tracer observes requests through the scheduler and the kernel,
// so that a hop's cost is measured rather than priced: BPF programs on BTF
// tracepoints (tp_btf: sched_switch, sched_waking, sched_wakeup_new,
// sched_migrate_task, sys_enter, sys_exit, softirq_entry/exit, cpu_idle),
// filtered in the kernel to the followed processes and CPUs, write one
// fixed-size Event per record into a ring buffer, which the collector
// decodes in place.
//
// Assemble, which is portable and pure, turns the events into the
// client's requests, from the entry of a send to the return of the receive
// that completes the response, and walks each one's critical path back
// through the chain of wake-ups: the client's receive returned after it was
// switched in, after it waited runnable since it was woken, by a waker that
// was inside its send system call (the leg), after that waker's own user
// and kernel time since it was itself woken, and so on back to the
// client's send. The Segments partition the round trip; Split sums them by
// DESIGN.md's names (relay_user, relay_kernel, runnable, idle_exit,
// softirq, legs, endpoints, other).
//
// The tracer's own cost per record is measured by Calibrate and taken off
// the segments that hold the records. Where BPF, BTF or the capability is
// missing, Open's error wraps ErrNoBTF, ErrNoCapability or ErrKernel, all
// errors.ErrUnsupported, so the caller can fall back and say why.
//
// The programs are written with cilium/ebpf's asm package, so building
// needs no C compiler; the struct offsets they read come from the
// kernel's BTF at load time.
package tracer

// Package tracer observes requests through the scheduler and the kernel,
// so that a hop's cost is measured rather than priced: BPF programs on BTF
// tracepoints (tp_btf: sched_switch, sched_waking, sched_wakeup_new,
// sched_migrate_task, sys_enter, sys_exit, softirq_entry/exit, cpu_idle),
// filtered in the kernel to the followed processes and CPUs, write one
// fixed-size Event per record into their CPU's next slot of an mmapped
// array, which Stop decodes in place once the programs are detached. A
// whole system call, or a whole softirq, is one record written at its
// exit; Stop splits it into the entry and the exit it stands for.
//
// Assemble, which is portable and pure, turns the events into the
// client's requests, from the entry of a send to the return of the receive
// that completes the response, and walks each one's critical path back
// through the chain of wake-ups: the client's receive returned after it was
// switched in, after it waited runnable since it was woken, by a waker that
// was inside its send system call (the leg), after that waker's own user
// and kernel time since it was itself woken, and so on back to the
// client's send. The Segments partition the round trip; Split sums them by
// DESIGN.md's names (package tracer/split). Where the components share
// one CPU, Config.ChargeHolder charges each stretch to whoever held the
// CPU instead, so that a relay's parts are its time on CPU. Floor loads
// programs that return at once, the hooks' bare dispatch cost a run
// measures to read its overhead against.
//
// The tracer's own cost per record is measured by Calibrate and taken off
// the segments that hold the records. Where BPF, BTF or the capability is
// missing, Open's error wraps ErrNoBTF, ErrNoCapability or ErrKernel, all
// errors.ErrUnsupported, so the caller can fall back and say why.
//
// A driver's use, in short:
//
//	tr, err := tracer.Open(tracer.Config{Components: map[int]string{relayPID: "relay", serverPID: "server"}})
//	if errors.Is(err, errors.ErrUnsupported) { /* fall back; print err */ }
//	defer tr.Close()
//	tr.Calibrate(ctx)              // once: the cost per record, taken off later
//	tr.Follow(clientPID, "client") // a process started after Open
//	tr.Start()
//	// ... a traced round ...
//	trace, _ := tr.Stop()
//	reqs := trace.Requests()
//	p50, _ := tracer.Quantile(reqs, 0.5) // p50.Split(): DESIGN.md's p50_split_us
//	identity := tracer.IdentityPct(reqs)  // trace.identity_pct
//
// Waterfall writes chosen requests as trace.json in the Chrome
// trace-event format: open it in ui.perfetto.dev ("Open trace file") or in
// chrome://tracing ("Load"), unmodified.
//
// What the walk cannot see, and shows as such: a task that polls instead
// of sleeping (a spinning client or relay, Go's spinning threads) is never
// woken, so its wait is its own user or kernel time; a wake-up from a
// timer or another interrupt names whatever task the interrupt found on
// CPU, usually one the trace does not follow, and the rest of the walk is
// SegOther, as it is after a lost record. Softirq time is its own kind
// wherever it runs, so a loopback TCP leg is SegLeg (the sender's system
// call up to the softirq) plus SegSoftirq (the receive half, in the
// sender's context).
//
// The programs are written with cilium/ebpf's asm package, so building
// needs no C compiler; the struct offsets they read come from the
// kernel's BTF at load time.
//
// It may import sockets, affinity, roles, stats and cilium/ebpf, and
// x/sys/unix in its _linux.go files.
package tracer

package tracer

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
)

// offsets are the kernel's struct layouts the programs read, taken from
// its BTF at load time, so one build runs on any kernel that has BTF.
type offsets struct {
	pid, tgid int32 // task_struct.pid, .tgid
	cpu       int32 // task_struct.thread_info.cpu, -1 if absent
	arg0      int32 // pt_regs: the first system call argument, -1 if unknown
}

func kernelOffsets() (offsets, error) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return offsets{}, fmt.Errorf("%w: %v", ErrNoBTF, err)
	}
	var task, regs *btf.Struct
	if err := spec.TypeByName("task_struct", &task); err != nil {
		return offsets{}, fmt.Errorf("%w: struct task_struct: %v", ErrNoBTF, err)
	}
	o := offsets{cpu: -1, arg0: -1}
	var ok bool
	if o.pid, ok = memberOffset(task, "pid"); !ok {
		return offsets{}, fmt.Errorf("%w: task_struct has no pid", ErrKernel)
	}
	if o.tgid, ok = memberOffset(task, "tgid"); !ok {
		return offsets{}, fmt.Errorf("%w: task_struct has no tgid", ErrKernel)
	}
	if ti, ok := memberOffset(task, "thread_info"); ok {
		var info *btf.Struct
		if spec.TypeByName("thread_info", &info) == nil {
			if c, ok := memberOffset(info, "cpu"); ok {
				o.cpu = ti + c
			}
		}
	}
	if spec.TypeByName("pt_regs", &regs) == nil {
		// x86-64 names the first argument's register di; arm64 keeps
		// x0..x30 in regs[].
		for _, name := range []string{"di", "regs"} {
			if off, ok := memberOffset(regs, name); ok {
				o.arg0 = off
				break
			}
		}
	}
	return o, nil
}

// memberOffset finds a member by name, looking into anonymous structs and
// unions as C does, and returns its byte offset.
func memberOffset(s *btf.Struct, name string) (int32, bool) {
	return findMember(s.Members, name)
}

func findMember(members []btf.Member, name string) (int32, bool) {
	for _, m := range members {
		if m.Name == name {
			return int32(m.Offset.Bytes()), true
		}
		if m.Name != "" {
			continue
		}
		var inner []btf.Member
		switch c := btf.UnderlyingType(m.Type).(type) {
		case *btf.Struct:
			inner = c.Members
		case *btf.Union:
			inner = c.Members
		}
		if off, ok := findMember(inner, name); ok {
			return int32(m.Offset.Bytes()) + off, true
		}
	}
	return 0, false
}

// The event is built on the program's stack at fp-EventSize; the CPU-set
// lookup and the lost counter use the word below it as their key.
const (
	evBase = -EventSize
	keyOff = -EventSize - 8
)

// pidLimit bounds every pid and tgid (PID_MAX_LIMIT, include/linux/threads.h,
// on 64-bit): the bitmaps are 512 KiB each.
const pidLimit = 4 << 20

// setBit sets or clears id's bit in the bitmap m; the caller serialises
// the read-modify-write.
func setBit(m *ebpf.Map, id int, on bool) error {
	if id < 0 || id >= pidLimit {
		return fmt.Errorf("id %d out of range", id)
	}
	key := uint32(id / 64)
	var word uint64
	if err := m.Lookup(key, &word); err != nil {
		return err
	}
	if on {
		word |= 1 << (id % 64)
	} else {
		word &^= 1 << (id % 64)
	}
	return m.Put(key, word)
}

// objects owns the tracer's kernel side: its maps, programs and links, all
// released by close.
//
//   - tgids, tids (BPF_MAP_TYPE_ARRAY of u64 words): bitmaps of the followed
//     processes and extra threads, bit id%64 of word id/64. Every program
//     tests the task here before any work.
//   - calls (the same): the followed processes whose system calls are
//     recorded (Config.WithoutSyscalls leaves some out).
//   - cpus (BPF_MAP_TYPE_ARRAY, by CPU): non-zero where idle and softirq
//     events are recorded.
//   - next (BPF_MAP_TYPE_ARRAY, by CPU, mmapped): the CPU's next free slot
//     in events; a program claims its slot with an atomic fetch-and-add.
//     Past perCPU the record is lost, and the count says by how many.
//   - inflight (BPF_MAP_TYPE_ARRAY): each followed task's system call in
//     progress, so that its exit records the whole call (inflightSlots).
//   - softirqs (BPF_MAP_TYPE_ARRAY, by CPU): the time the CPU's softirq in
//     progress entered (softirqs do not nest on a CPU), 0 once its exit
//     has taken it into one KindSoftirq record.
//   - events (BPF_MAP_TYPE_ARRAY of Events, mmapped): perCPU slots per CPU,
//     CPU c's from c*perCPU. Nothing reads it while a window is open, so a
//     record takes no lock, shares no cache line with another CPU and wakes
//     no collector: on a machine of two CPUs, a collector running beside
//     the path is one more task on the path's CPUs.
type objects struct {
	tgids, tids, calls, cpus, next, events *ebpf.Map
	inflight, softirqs                     *ebpf.Map
	nextMem, eventsMem                     *ebpf.Memory
	perCPU                                 int
	progs                                  []*ebpf.Program
	tracepoints                            []string // progs[i] is attached to tracepoints[i]
	links                                  []link.Link
	wakeup                                 string     // the tracepoint behind KindWaking
	socks                                  *ebpf.Map  // ProxyHooks: the sockets sk_data_ready records
	sock                                   sockLayout // ProxyHooks: where the programs read a socket
}

func (o *objects) close() {
	o.detach()
	for _, p := range o.progs {
		p.Close()
	}
	for _, m := range []*ebpf.Map{o.tgids, o.tids, o.calls, o.cpus, o.next, o.events, o.inflight, o.softirqs, o.socks} {
		if m != nil {
			m.Close()
		}
	}
	*o = objects{}
}

func (o *objects) attach() error {
	links, failed, err := attachAll(o.progs)
	if err != nil {
		o.detach()
		return kernelError("attach "+failed.String(), err)
	}
	o.links = append(o.links, links...)
	return nil
}

func (o *objects) detach() {
	detachAll(o.links)
	o.links = nil
}

// attachAll attaches each of progs to its tracepoint (tp_btf) and returns
// the links. On an error it closes the links it made, so that none of
// progs stays attached, and names the program that failed.
func attachAll(progs []*ebpf.Program) (_ []link.Link, failed *ebpf.Program, _ error) {
	var links []link.Link
	for _, p := range progs {
		l, err := link.AttachTracing(link.TracingOptions{Program: p, AttachType: ebpf.AttachTraceRawTp})
		if err != nil {
			detachAll(links)
			return nil, p, err
		}
		links = append(links, l)
	}
	return links, nil, nil
}

// detachAll takes links' programs off their tracepoints.
func detachAll(links []link.Link) {
	for _, l := range links {
		l.Close()
	}
}

// kernelError sorts a refusal from bpf(2) into the package's sentinels.
func kernelError(op string, err error) error {
	var errno syscall.Errno
	switch {
	case errors.Is(err, os.ErrPermission) && errors.As(err, &errno):
		// The kernel's answer alone: cilium/ebpf adds a hint about
		// RLIMIT_MEMLOCK that misleads on kernels that account BPF
		// memory to the cgroup.
		return fmt.Errorf("%w: %s: %v", ErrNoCapability, op, errno)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("%w: %s", ErrNoCapability, op)
	default:
		return fmt.Errorf("%w: %s: %v", ErrKernel, op, err)
	}
}

func newObjects(bufferBytes int, hooks Hooks) (*objects, error) {
	off, err := kernelOffsets()
	if err != nil {
		return nil, err
	}
	o := &objects{}
	if op, err := o.createMaps(bufferBytes); err != nil {
		o.close()
		return nil, kernelError(op, err)
	}
	b := builder{o: o, off: off}
	progs := b.requestPrograms()
	if hooks == ProxyHooks {
		if o.sock, err = sockOffsets(); err != nil {
			o.close()
			return nil, err
		}
		b.sock = o.sock
		if o.socks, err = ebpf.NewMap(&ebpf.MapSpec{Name: "hoplat_socks", Type: ebpf.LRUHash, KeySize: 8, ValueSize: 8, MaxEntries: sockSlots}); err != nil {
			o.close()
			return nil, kernelError("create hash socks", err)
		}
		progs = b.proxyPrograms()
	}
	if op, err := o.loadPrograms(b, progs); err != nil {
		o.close()
		return nil, kernelError(op, err)
	}
	return o, nil
}

// createMaps creates the maps every hook set uses and maps the two the
// reader reads in place; on failure it says which operation failed.
func (o *objects) createMaps(bufferBytes int) (op string, err error) {
	bitmap := func(name string) (*ebpf.Map, error) {
		return ebpf.NewMap(&ebpf.MapSpec{Name: name, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: pidLimit / 64})
	}
	if o.tgids, err = bitmap("hoplat_tgids"); err != nil {
		return "create array tgids", err
	}
	if o.tids, err = bitmap("hoplat_tids"); err != nil {
		return "create array tids", err
	}
	if o.calls, err = bitmap("hoplat_calls"); err != nil {
		return "create array calls", err
	}
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return "possible CPUs", err
	}
	if o.cpus, err = ebpf.NewMap(&ebpf.MapSpec{Name: "hoplat_cpus", Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: uint32(ncpu)}); err != nil {
		return "create array cpus", err
	}
	if o.next, err = ebpf.NewMap(&ebpf.MapSpec{Name: "hoplat_next", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: uint32(ncpu), Flags: unix_BPF_F_MMAPABLE}); err != nil {
		return "create array next", err
	}
	if o.inflight, err = ebpf.NewMap(&ebpf.MapSpec{Name: "hoplat_inflight", Type: ebpf.Array, KeySize: 4, ValueSize: 24, MaxEntries: inflightSlots}); err != nil {
		return "create array inflight", err
	}
	if o.softirqs, err = ebpf.NewMap(&ebpf.MapSpec{Name: "hoplat_softirqs", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: uint32(ncpu)}); err != nil {
		return "create array softirqs", err
	}
	o.perCPU = slotsPerCPU(bufferBytes, ncpu)
	if o.events, err = ebpf.NewMap(&ebpf.MapSpec{Name: "hoplat_events", Type: ebpf.Array, KeySize: 4, ValueSize: EventSize, MaxEntries: uint32(o.perCPU * ncpu), Flags: unix_BPF_F_MMAPABLE}); err != nil {
		return "create array events", err
	}
	if o.nextMem, err = o.next.Memory(); err != nil {
		return "map array next", err
	}
	if o.eventsMem, err = o.events.Memory(); err != nil {
		return "map array events", err
	}
	return "", nil
}

// loadPrograms assembles and loads progs and the wake-up's program; on
// failure it says which operation failed.
func (o *objects) loadPrograms(b builder, progs []program) (op string, err error) {
	load := func(tp string, insns asm.Instructions) error {
		p, err := ebpf.NewProgram(&ebpf.ProgramSpec{
			Name: "hoplat_" + tp, Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, AttachTo: tp,
			Instructions: insns, License: "GPL",
		})
		if err != nil {
			return err
		}
		o.progs = append(o.progs, p)
		o.tracepoints = append(o.tracepoints, tp)
		return nil
	}
	for _, p := range progs {
		insns, err := p.insns()
		if err != nil {
			return "assemble " + p.tp, err
		}
		if err := load(p.tp, insns); err != nil {
			return "load tp_btf/" + p.tp, err
		}
	}
	// sched_waking fires in the waker's context; sched_wakeup, on a
	// wake-up queued to an idle CPU, fires on that CPU with its idle task
	// current (kernel/sched/core.c, ttwu_queue_wakelist), so it names the
	// waker only where sched_waking is missing.
	insns, err := b.wakeProg(KindWaking)
	if err != nil {
		return "assemble sched_waking", err
	}
	o.wakeup = "sched_waking"
	if err := load(o.wakeup, insns); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return "load tp_btf/sched_waking", err
		}
		o.wakeup = "sched_wakeup"
		if err := load(o.wakeup, insns); err != nil {
			return "load tp_btf/sched_wakeup", err
		}
	}
	return "", nil
}

// program is one tracepoint's program, written by insns.
type program struct {
	tp    string
	insns func() (asm.Instructions, error)
}

// requestPrograms are RequestHooks' programs but the wake-up's.
func (b *builder) requestPrograms() []program {
	return []program{
		{"sched_switch", b.switchProg},
		{"sched_wakeup_new", func() (asm.Instructions, error) { return b.wakeProg(KindWakeupNew) }},
		{"sched_migrate_task", b.migrateProg},
		{"sys_enter", func() (asm.Instructions, error) { return b.sysProg(KindSysEnter) }},
		{"sys_exit", func() (asm.Instructions, error) { return b.sysProg(KindSysExit) }},
		{"softirq_entry", func() (asm.Instructions, error) { return b.softirqProg(KindSoftirqEntry, false) }},
		{"softirq_exit", func() (asm.Instructions, error) { return b.softirqProg(KindSoftirqExit, false) }},
		{"cpu_idle", b.idleProg},
	}
}

// fetchAdd is *(u64 *)dst += src, src taking the old value. cilium/ebpf
// v0.22 encodes an atomic instruction's operation in its immediate after
// it has written the immediate (asm/instruction.go, Marshal), so its
// FetchAdd reaches the kernel as a plain add and src keeps its value; the
// operation is given as the constant here, which Marshal does write.
func fetchAdd(dst, src asm.Register) asm.Instruction { return atomic(asm.FetchAdd, dst, src) }

// atomic is the atomic operation op on the u64 at dst with src, its
// operation given as the constant for the reason fetchAdd says.
func atomic(op asm.AtomicOp, dst, src asm.Register) asm.Instruction {
	ins := op.Mem(dst, src, asm.DWord, 0)
	ins.Constant = int64(op >> 8)
	return ins
}

// unix_BPF_F_MMAPABLE is BPF_F_MMAPABLE (include/uapi/linux/bpf.h): an
// array user space maps into its memory and reads without a system call
// per record.
const unix_BPF_F_MMAPABLE = 1 << 10

// slotsPerCPU shares n bytes (DefaultBufferBytes if n <= 0) between ncpu
// CPUs' slots, at least minSlotsPerCPU each, and keeps the array's
// element count within a u32.
func slotsPerCPU(n, ncpu int) int {
	if n <= 0 {
		n = DefaultBufferBytes
	}
	ncpu = max(ncpu, 1)
	per := max(n/EventSize/ncpu, minSlotsPerCPU)
	return min(per, math.MaxInt32/ncpu)
}

// minSlotsPerCPU keeps a machine of many CPUs from dividing the buffer
// into regions too small for one traced round of a path's CPU.
const minSlotsPerCPU = 1 << 16

// builder writes the programs, one per tracepoint. A tp_btf program's
// context is the tracepoint's arguments (TP_PROTO) as an array of u64; a
// task_struct pointer among them is typed by BTF, so the verifier lets the
// program load its fields directly (PTR_TO_BTF_ID, a faulting load made
// safe), at the offsets read from the kernel's BTF.
type builder struct {
	o    *objects
	off  offsets
	sock sockLayout
	err  error
}

func (b *builder) mapPtr(dst asm.Register, m *ebpf.Map) asm.Instruction {
	ins := asm.LoadMapPtr(dst, 0)
	if err := ins.AssociateMap(m); err != nil && b.err == nil {
		b.err = err
	}
	return ins
}

// prologue keeps the context in r6 and zeroes the event on the stack: the
// ring buffer helper reads all of it, and the verifier refuses
// uninitialised stack.
func prologue() asm.Instructions {
	insns := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1), asm.Mov.Imm(asm.R1, 0)}
	for off := int16(evBase); off < 0; off += 8 {
		insns = append(insns, asm.StoreMem(asm.RFP, off, asm.R1, asm.DWord))
	}
	return insns
}

// arg loads the tracepoint's argument i into dst.
func arg(dst asm.Register, i int16) asm.Instruction {
	return asm.LoadMem(dst, asm.R6, 8*i, asm.DWord)
}

// current stores the current task's tid and tgid in the event.
func current() asm.Instructions {
	return asm.Instructions{
		asm.FnGetCurrentPidTgid.Call(),
		asm.StoreMem(asm.RFP, evBase+offTid, asm.R0, asm.Word),
		asm.RSh.Imm(asm.R0, 32),
		asm.StoreMem(asm.RFP, evBase+offTgid, asm.R0, asm.Word),
	}
}

// taskIDs stores the pid and tgid of the task_struct in reg at the
// event's offsets tid and tgid.
func (b *builder) taskIDs(reg asm.Register, tid, tgid int16) asm.Instructions {
	return asm.Instructions{
		asm.LoadMem(asm.R3, reg, int16(b.off.pid), asm.Word),
		asm.StoreMem(asm.RFP, evBase+tid, asm.R3, asm.Word),
		asm.LoadMem(asm.R3, reg, int16(b.off.tgid), asm.Word),
		asm.StoreMem(asm.RFP, evBase+tgid, asm.R3, asm.Word),
	}
}

// taskCPU stores the CPU of the task_struct in reg at the event's offset
// dst, where the kernel's BTF says where it is.
func (b *builder) taskCPU(reg asm.Register, dst int16) asm.Instructions {
	if b.off.cpu < 0 {
		return nil
	}
	return asm.Instructions{
		asm.LoadMem(asm.R3, reg, int16(b.off.cpu), asm.Word),
		asm.StoreMem(asm.RFP, evBase+dst, asm.R3, asm.DWord),
	}
}

// follows jumps to "emit" if the task whose ids are at the event's
// offsets tid and tgid is followed (its process's bit in tgids, or its own
// in tids), and falls through otherwise.
func (b *builder) follows(tid, tgid int16) asm.Instructions {
	return append(b.bitSet(b.o.tgids, tgid), b.bitSet(b.o.tids, tid)...)
}

// bitSet jumps to "emit" if the bit of the id at the event's offset off
// is set in the bitmap m. An array lookup is inlined by the verifier
// (array_map_gen_lookup), so the test costs no helper call: it runs for
// every system call of every task on the machine.
func (b *builder) bitSet(m *ebpf.Map, off int16) asm.Instructions {
	return seq(asm.Instructions{
		asm.LoadMem(asm.R1, asm.RFP, evBase+off, asm.Word),
		asm.RSh.Imm(asm.R1, 6),
		asm.StoreMem(asm.RFP, keyOff, asm.R1, asm.Word),
	}, b.lookupKey(m), asm.Instructions{
		asm.JEq.Imm(asm.R0, 0, "skip"+strconv.Itoa(int(off))),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.LoadMem(asm.R2, asm.RFP, evBase+off, asm.Word),
		asm.And.Imm(asm.R2, 63),
		asm.RSh.Reg(asm.R1, asm.R2),
		asm.And.Imm(asm.R1, 1),
		asm.JNE.Imm(asm.R1, 0, "emit"),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("skip" + strconv.Itoa(int(off))),
	})
}

// lookupKey looks the key in the word at keyOff up in m: r0 the value's
// address, or 0.
func (b *builder) lookupKey(m *ebpf.Map) asm.Instructions {
	return asm.Instructions{
		b.mapPtr(asm.R1, m),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, keyOff),
		asm.FnMapLookupElem.Call(),
	}
}

// seq joins instruction lists.
func seq(parts ...asm.Instructions) asm.Instructions { return slices.Concat(parts...) }

// cpuFollowed jumps to "out" unless the CPU whose number is in the word at
// keyOff is in the cpus set.
func (b *builder) cpuFollowed() asm.Instructions {
	return seq(b.lookupKey(b.o.cpus), asm.Instructions{
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.Word),
		asm.JEq.Imm(asm.R1, 0, "out"),
	})
}

// emit stamps the event with its kind, the time and the CPU, and stores
// it in the CPU's next slot; past the CPU's last slot it is lost, which
// the CPU's count past perCPU says. It ends the program ("out" returns 0).
func (b *builder) emit(k Kind) asm.Instructions {
	return append(asm.Instructions{
		asm.StoreImm(asm.RFP, evBase+offKind, int64(k), asm.Word).WithSymbol("emit"),
	}, b.emitTail()...)
}

// emitTail is emit after the kind is stored ("tail"). It claims the
// slot before it reads the clock and first writes the slot's two ends:
// a record's slot is a cache line no one has touched since the last
// window, and on a guest whose system-call return switches page tables
// (PTI) the switch waits for that line's fetch unless the fetch is already
// under way. Here it runs while the clock is read. Claimed first, a
// CPU's slots are no longer in time order where a softirq's record lands
// between a task's claim and its clock read; the records are sorted by
// time when read.
func (b *builder) emitTail() asm.Instructions {
	return seq(asm.Instructions{
		asm.FnGetSmpProcessorId.Call().WithSymbol("tail"),
		asm.StoreMem(asm.RFP, evBase+offCPU, asm.R0, asm.Word),
		// The CPU's next slot: next[cpu] += 1, its old value in r1.
		asm.StoreMem(asm.RFP, keyOff, asm.R0, asm.Word),
	}, b.lookupKey(b.o.next), asm.Instructions{
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 1),
		fetchAdd(asm.R0, asm.R1),
		asm.JGE.Imm(asm.R1, int32(b.o.perCPU), "out"), // full: lost, counted by next
		// events[cpu*perCPU + slot], its address kept in r8.
		asm.LoadMem(asm.R2, asm.RFP, keyOff, asm.Word),
		asm.Mul.Imm(asm.R2, int32(b.o.perCPU)),
		asm.Add.Reg(asm.R2, asm.R1),
		asm.StoreMem(asm.RFP, keyOff, asm.R2, asm.Word),
	}, b.lookupKey(b.o.events), asm.Instructions{
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R8, asm.R0),
		// Time 0 until the record is whole: collect counts a record
		// stamped before its window as bad.
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R8, offTime, asm.R1, asm.DWord),
		asm.StoreMem(asm.R8, EventSize-8, asm.R1, asm.DWord),
		asm.FnKtimeGetNs.Call(),
		asm.Mov.Reg(asm.R9, asm.R0),
		asm.LoadMem(asm.R1, asm.RFP, evBase+8, asm.DWord),
		asm.StoreMem(asm.R8, 8, asm.R1, asm.DWord),
		asm.LoadMem(asm.R1, asm.RFP, evBase+16, asm.DWord),
		asm.StoreMem(asm.R8, 16, asm.R1, asm.DWord),
		asm.LoadMem(asm.R1, asm.RFP, evBase+24, asm.DWord),
		asm.StoreMem(asm.R8, 24, asm.R1, asm.DWord),
		asm.LoadMem(asm.R1, asm.RFP, evBase+32, asm.DWord),
		asm.StoreMem(asm.R8, 32, asm.R1, asm.DWord),
		asm.LoadMem(asm.R1, asm.RFP, evBase+40, asm.DWord),
		asm.StoreMem(asm.R8, 40, asm.R1, asm.DWord),
		asm.StoreMem(asm.R8, offTime, asm.R9, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	})
}

func (b *builder) done(parts ...asm.Instructions) (asm.Instructions, error) {
	var insns asm.Instructions
	for _, p := range parts {
		insns = append(insns, p...)
	}
	if b.err != nil {
		return nil, b.err
	}
	return insns, nil
}

// sched_switch(bool preempt, struct task_struct *prev, struct task_struct
// *next, unsigned int prev_state): recorded when either task is followed.
func (b *builder) switchProg() (asm.Instructions, error) {
	return b.done(prologue(),
		asm.Instructions{arg(asm.R7, 1)}, b.taskIDs(asm.R7, offTid, offTgid),
		asm.Instructions{arg(asm.R7, 2)}, b.taskIDs(asm.R7, offTid2, offTgid2),
		asm.Instructions{
			arg(asm.R3, 3),
			asm.Mov.Reg32(asm.R3, asm.R3),
			asm.StoreMem(asm.RFP, evBase+offArg, asm.R3, asm.DWord),
			arg(asm.R3, 0),
			asm.And.Imm(asm.R3, 0xff),
			asm.StoreMem(asm.RFP, evBase+offArg2, asm.R3, asm.DWord),
		},
		b.follows(offTid, offTgid), b.follows(offTid2, offTgid2),
		asm.Instructions{asm.Ja.Label("out")},
		b.emit(KindSwitch))
}

// sched_waking(struct task_struct *p), sched_wakeup_new(p): recorded
// when p is followed; the current task is the waker.
func (b *builder) wakeProg(k Kind) (asm.Instructions, error) {
	return b.done(prologue(),
		current(),
		asm.Instructions{arg(asm.R7, 0)}, b.taskIDs(asm.R7, offTid2, offTgid2), b.taskCPU(asm.R7, offArg),
		b.follows(offTid2, offTgid2),
		asm.Instructions{asm.Ja.Label("out")},
		b.emit(k))
}

// sched_migrate_task(struct task_struct *p, int dest_cpu).
func (b *builder) migrateProg() (asm.Instructions, error) {
	return b.done(prologue(),
		current(),
		asm.Instructions{arg(asm.R7, 0)}, b.taskIDs(asm.R7, offTid2, offTgid2), b.taskCPU(asm.R7, offArg2),
		asm.Instructions{
			arg(asm.R3, 1),
			asm.Mov.Reg32(asm.R3, asm.R3),
			asm.StoreMem(asm.RFP, evBase+offArg, asm.R3, asm.DWord),
		},
		b.follows(offTid2, offTgid2),
		asm.Instructions{asm.Ja.Label("out")},
		b.emit(KindMigrate))
}

// sys_enter(struct pt_regs *regs, long id), sys_exit(regs, long ret):
// recorded for followed tasks. The filter comes first: every task on the
// machine passes here on every system call.
func (b *builder) sysProg(k Kind) (asm.Instructions, error) {
	if k == KindSysEnter {
		return b.enterProg()
	}
	return b.exitProg()
}

// Where a followed task's sys_enter is kept until its sys_exit, so that a
// whole call makes one record (KindSyscall): slot tid%inflightSlots of
// the inflight array, 24 bytes:
//
//	 0 u64 the entry's time, 0 once its exit has taken it
//	 8 u32 the task
//	12 u32 the call's number, the CPU it entered on << 16
//	16 u64 its first argument
//
// Two followed tasks whose ids share a slot and whose calls overlap cost
// the second's entry: its exit is recorded alone, as for a call entered
// before the window.
const inflightSlots = 1 << 16

// inflightSlot looks the current task's inflight slot up: r0 its
// address, or 0.
func (b *builder) inflightSlot() asm.Instructions {
	return seq(asm.Instructions{
		asm.LoadMem(asm.R1, asm.RFP, evBase+offTid, asm.Word),
		asm.And.Imm(asm.R1, inflightSlots-1),
		asm.StoreMem(asm.RFP, keyOff, asm.R1, asm.Word),
	}, b.lookupKey(b.o.inflight))
}

// enterProg is sys_enter(struct pt_regs *regs, long id) for a followed
// task: it fills the task's inflight slot and records nothing.
func (b *builder) enterProg() (asm.Instructions, error) {
	body := seq(asm.Instructions{
		asm.FnKtimeGetNs.Call().WithSymbol("emit"),
		asm.Mov.Reg(asm.R9, asm.R0),
	}, b.inflightSlot(), asm.Instructions{
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.FnGetSmpProcessorId.Call(),
		asm.LSh.Imm(asm.R0, 16),
		arg(asm.R3, 1),
		asm.And.Imm(asm.R3, 0xffff),
		asm.Or.Reg(asm.R0, asm.R3),
		asm.StoreMem(asm.R7, 12, asm.R0, asm.Word),
		asm.LoadMem(asm.R1, asm.RFP, evBase+offTid, asm.Word),
		asm.StoreMem(asm.R7, 8, asm.R1, asm.Word),
	})
	if b.off.arg0 >= 0 {
		body = append(body,
			arg(asm.R1, 0),
			asm.LoadMem(asm.R3, asm.R1, int16(b.off.arg0), asm.DWord),
			asm.StoreMem(asm.R7, 16, asm.R3, asm.DWord))
	} else {
		body = append(body, asm.Mov.Imm(asm.R3, -1), asm.StoreMem(asm.R7, 16, asm.R3, asm.DWord))
	}
	// The time last: a slot whose time is set is whole.
	body = append(body,
		asm.StoreMem(asm.R7, 0, asm.R9, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return())
	return b.done(prologue(),
		current(),
		b.bitSet(b.o.calls, offTgid), b.bitSet(b.o.tids, offTid),
		asm.Instructions{asm.Ja.Label("out")},
		body)
}

// exitProg is sys_exit(struct pt_regs *regs, long ret) for a followed
// task: one KindSyscall record if its inflight slot holds its entry, else
// a KindSysExit (the call began before the window or the slot was
// taken).
func (b *builder) exitProg() (asm.Instructions, error) {
	body := seq(asm.Instructions{
		arg(asm.R3, 1).WithSymbol("emit"),
		asm.StoreMem(asm.RFP, evBase+offArg, asm.R3, asm.DWord),
	}, b.inflightSlot(), paired(KindSyscall, KindSysExit, asm.Instructions{
		// The slot's entry is this thread's.
		asm.LoadMem(asm.R2, asm.R0, 8, asm.Word),
		asm.LoadMem(asm.R3, asm.RFP, evBase+offTid, asm.Word),
		asm.JNE.Reg(asm.R2, asm.R3, "alone"),
	}, asm.Instructions{
		asm.LoadMem(asm.R2, asm.R0, 12, asm.Word),
		asm.StoreMem(asm.RFP, evBase+offTid2, asm.R2, asm.Word),
		asm.LoadMem(asm.R2, asm.R0, 16, asm.DWord),
		asm.StoreMem(asm.RFP, evBase+offTgid2, asm.R2, asm.Word),
	}))
	return b.done(prologue(),
		current(),
		b.bitSet(b.o.calls, offTgid), b.bitSet(b.o.tids, offTid),
		asm.Instructions{asm.Ja.Label("out")},
		body, b.emitTail())
}

// paired follows the lookup of an entry's slot (r0 the slot, or 0) in an
// exit's program: when the slot holds an entry's time (its first word, in
// r1) and match, which may jump to "alone", lets it through, the time goes
// to the record's arg2, then more runs (r0 still the slot), the slot is
// emptied so that no later exit pairs with the same entry, and the record
// is of kind pair, ending at "tail"; else it is of kind alone.
func paired(pair, alone Kind, match, more asm.Instructions) asm.Instructions {
	return seq(asm.Instructions{
		asm.JEq.Imm(asm.R0, 0, "alone"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.JEq.Imm(asm.R1, 0, "alone"),
	}, match, asm.Instructions{
		asm.StoreMem(asm.RFP, evBase+offArg2, asm.R1, asm.DWord),
	}, more, asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.StoreImm(asm.RFP, evBase+offKind, int64(pair), asm.Word),
		asm.Ja.Label("tail"),
		asm.StoreImm(asm.RFP, evBase+offKind, int64(alone), asm.Word).WithSymbol("alone"),
	})
}

// softirq_entry(unsigned int vec_nr), softirq_exit(vec_nr): recorded on
// the CPUs of the set, with the task they interrupted; with followed,
// only where that task is followed (the check at the exit: the entry only
// keeps its time).
func (b *builder) softirqProg(k Kind, followed bool) (asm.Instructions, error) {
	head := asm.Instructions{
		asm.FnGetSmpProcessorId.Call(),
		asm.StoreMem(asm.RFP, keyOff, asm.R0, asm.Word),
	}
	slot := b.lookupKey(b.o.softirqs)
	if k == KindSoftirqEntry {
		// The entry's time in the CPU's slot; no record.
		return b.done(prologue(), head, b.cpuFollowed(),
			asm.Instructions{asm.FnKtimeGetNs.Call(), asm.Mov.Reg(asm.R9, asm.R0)},
			slot,
			asm.Instructions{
				asm.JEq.Imm(asm.R0, 0, "out"),
				asm.StoreMem(asm.R0, 0, asm.R9, asm.DWord),
				asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
				asm.Return(),
			})
	}
	who := seq(head, b.cpuFollowed(), current())
	if followed {
		head[0] = head[0].WithSymbol("emit")
		who = seq(current(), b.follows(offTid, offTgid), asm.Instructions{asm.Ja.Label("out")}, head)
	}
	// The exit: one KindSoftirq record with the entry's time when the
	// CPU's slot holds it, else a lone KindSoftirqExit.
	return b.done(prologue(), who,
		asm.Instructions{
			arg(asm.R3, 0),
			asm.Mov.Reg32(asm.R3, asm.R3),
			asm.StoreMem(asm.RFP, evBase+offArg, asm.R3, asm.DWord),
		},
		slot,
		paired(KindSoftirq, KindSoftirqExit, nil, nil),
		b.emitTail())
}

// cpu_idle(unsigned int state, unsigned int cpu_id): recorded for the
// CPUs of the set.
func (b *builder) idleProg() (asm.Instructions, error) {
	return b.done(prologue(),
		asm.Instructions{
			arg(asm.R3, 1),
			asm.Mov.Reg32(asm.R3, asm.R3),
			asm.StoreMem(asm.RFP, keyOff, asm.R3, asm.Word),
			asm.StoreMem(asm.RFP, evBase+offArg2, asm.R3, asm.DWord),
		},
		b.cpuFollowed(),
		current(),
		asm.Instructions{
			arg(asm.R3, 0),
			asm.Mov.Reg32(asm.R3, asm.R3),
			asm.StoreMem(asm.RFP, evBase+offArg, asm.R3, asm.DWord),
		},
		b.emit(KindIdle))
}

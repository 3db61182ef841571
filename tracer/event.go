package tracer

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Kind says which tracepoint recorded an Event.
type Kind uint32

// The tracepoints the tracer attaches to (include/trace/events/sched.h,
// syscalls.h, irq.h, power.h), one Kind each. Zero is no event.
const (
	// KindSwitch is sched_switch: Tid/Tgid the task leaving the CPU, Tid2/Tgid2
	// the one entering, Arg prev_state (0: it was still runnable, i.e.
	// preempted or yielding), Arg2 1 when the switch was a preemption.
	KindSwitch Kind = 1 + iota
	// KindWaking is sched_waking, fired in the waker's context: Tid/Tgid the
	// waker (the task current on CPU, which is the sender itself on a
	// loopback socket, often inside its softirq), Tid2/Tgid2 the task woken,
	// Arg the CPU the woken task last ran on.
	KindWaking
	// KindWakeupNew is sched_wakeup_new, a new task's first wake-up, with
	// the fields of KindWaking.
	KindWakeupNew
	// KindMigrate is sched_migrate_task: Tid2/Tgid2 the task moved, Arg the
	// destination CPU, Arg2 the CPU it leaves.
	KindMigrate
	// KindSysEnter is sys_enter: Arg the system call number, Arg2 its first
	// argument (the fd of read, write, sendto, recvfrom, ...).
	KindSysEnter
	// KindSysExit is sys_exit: Arg the return value.
	KindSysExit
	// KindSoftirqEntry and KindSoftirqExit are softirq_entry and
	// softirq_exit: Arg the vector (NET_RX is 3), Tid/Tgid the task it
	// interrupted.
	KindSoftirqEntry
	KindSoftirqExit
	// KindIdle is cpu_idle: Arg the state entered, or IdleExit when the
	// CPU leaves idle; Arg2 the CPU the event is about.
	KindIdle
	// KindSyscall is a whole system call, recorded at sys_exit by a task
	// whose sys_enter the tracer kept (one record where there would be
	// two): Arg the return value, Arg2 the time of the entry, Tid2 the
	// call's number in its low 16 bits and the CPU it entered on above,
	// Tgid2 the low 32 bits of its first argument. Split gives the
	// KindSysEnter and KindSysExit it stands for; a Trace holds those.
	KindSyscall
	// KindSoftirq is a whole softirq, recorded at softirq_exit on a CPU
	// whose softirq_entry the tracer kept: KindSoftirqExit's fields, and
	// Arg2 the time of the entry. Split gives the entry and the exit.
	KindSoftirq
	// KindDataReady is sk_data_ready, the kernel queueing data on a socket
	// a followed process has read or written (ProxyHooks), in whatever
	// context it runs (on loopback, the sender's softirq): Arg the socket
	// (its struct sock's address), Tid2 the socket's rcv_nxt (the sequence
	// number after the data queued), Tgid2 its ports (SockPorts).
	KindDataReady
	// KindRecv and KindSend are sock_recv_length and sock_send_length of a
	// followed task on a TCP socket, recorded when bytes moved: Arg the
	// socket, Arg2 the bytes, Tid2 its copied_seq (after a receive) or
	// write_seq (after a send), Tgid2 its ports.
	KindRecv
	KindSend
	// KindFork is sched_process_fork of a followed process: Tid/Tgid the
	// parent, Tid2/Tgid2 the child, whose process the kernel follows from
	// then on (ProxyHooks).
	KindFork
	kindEnd
)

// SockPorts returns the local and the remote port of a socket record's
// Tgid2 (the word of sock_common's skc_dport, network order, and skc_num,
// host order, as a little-endian load reads it).
func (e *Event) SockPorts() (local, remote uint16) {
	remote = uint16(e.Tgid2)
	return uint16(e.Tgid2 >> 16), remote>>8 | remote<<8
}

// IdleExit is cpu_idle's state when a CPU leaves idle (PWR_EVENT_EXIT,
// (u32)-1 in include/trace/events/power.h).
const IdleExit = 1<<32 - 1

var kindNames = [...]string{
	KindSwitch: "switch", KindWaking: "waking", KindWakeupNew: "wakeup_new",
	KindMigrate: "migrate", KindSysEnter: "sys_enter", KindSysExit: "sys_exit",
	KindSoftirqEntry: "softirq_entry", KindSoftirqExit: "softirq_exit", KindIdle: "cpu_idle",
	KindSyscall: "syscall", KindSoftirq: "softirq",
	KindDataReady: "data_ready", KindRecv: "recv", KindSend: "send", KindFork: "fork",
}

// Split returns the entry and the exit a KindSyscall or KindSoftirq
// record stands for; ok is false for any other Kind.
func (e *Event) Split() (enter, exit Event, ok bool) {
	if e.Kind == KindSoftirq {
		enter = Event{Time: e.Arg2, Arg: e.Arg, Tid: e.Tid, Tgid: e.Tgid, CPU: e.CPU, Kind: KindSoftirqEntry}
		exit = Event{Time: e.Time, Arg: e.Arg, Tid: e.Tid, Tgid: e.Tgid, CPU: e.CPU, Kind: KindSoftirqExit}
		return enter, exit, true
	}
	if e.Kind != KindSyscall {
		return Event{}, Event{}, false
	}
	enter = Event{
		Time: e.Arg2, Arg: uint64(e.Tid2 & 0xffff), Arg2: uint64(int64(int32(e.Tgid2))),
		Tid: e.Tid, Tgid: e.Tgid, CPU: e.Tid2 >> 16, Kind: KindSysEnter,
	}
	exit = Event{Time: e.Time, Arg: e.Arg, Tid: e.Tid, Tgid: e.Tgid, CPU: e.CPU, Kind: KindSysExit}
	return enter, exit, true
}

func (k Kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint32(k))
}

// Event is one record of the ring buffer, as the BPF programs write it
// (EventSize bytes, native byte order):
//
//	 0 Time   u64  bpf_ktime_get_ns: CLOCK_MONOTONIC, one clock for every CPU
//	 8 Arg    u64  by Kind
//	16 Tid    u32  the task current on CPU (its pid in the kernel's terms)
//	20 Tgid   u32  its process
//	24 Tid2   u32  the other task: next of a switch, the woken or migrated one
//	28 Tgid2  u32
//	32 CPU    u32  the CPU the program ran on
//	36 Kind   u32
//	40 Arg2   u64  by Kind
type Event struct {
	Time  uint64
	Arg   uint64
	Tid   uint32
	Tgid  uint32
	Tid2  uint32
	Tgid2 uint32
	CPU   uint32
	Kind  Kind
	Arg2  uint64
}

// EventSize is the size of one record.
const EventSize = 48

// Offsets of Event's fields in a record; the programs store at these.
const (
	offTime  = 0
	offArg   = 8
	offTid   = 16
	offTgid  = 20
	offTid2  = 24
	offTgid2 = 28
	offCPU   = 32
	offKind  = 36
	offArg2  = 40
)

// ErrShortRecord is returned by Decode for a record shorter than EventSize.
var ErrShortRecord = errors.New("tracer: short record")

// ErrBadKind is returned by Decode for a record of no known Kind.
var ErrBadKind = errors.New("tracer: record of unknown kind")

// Decode fills e from one ring-buffer record, in place: it allocates
// nothing, so the collector can decode every event of a run.
func (e *Event) Decode(b []byte) error {
	if len(b) < EventSize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrShortRecord, len(b), EventSize)
	}
	k := Kind(binary.NativeEndian.Uint32(b[offKind:]))
	if k == 0 || k >= kindEnd {
		return fmt.Errorf("%w %d", ErrBadKind, uint32(k))
	}
	*e = Event{
		Time:  binary.NativeEndian.Uint64(b[offTime:]),
		Arg:   binary.NativeEndian.Uint64(b[offArg:]),
		Tid:   binary.NativeEndian.Uint32(b[offTid:]),
		Tgid:  binary.NativeEndian.Uint32(b[offTgid:]),
		Tid2:  binary.NativeEndian.Uint32(b[offTid2:]),
		Tgid2: binary.NativeEndian.Uint32(b[offTgid2:]),
		CPU:   binary.NativeEndian.Uint32(b[offCPU:]),
		Kind:  k,
		Arg2:  binary.NativeEndian.Uint64(b[offArg2:]),
	}
	return nil
}

// Encode writes e as a record into b (at least EventSize bytes): the
// inverse of Decode, for tests and for saving a trace.
func (e *Event) Encode(b []byte) {
	_ = b[EventSize-1]
	binary.NativeEndian.PutUint64(b[offTime:], e.Time)
	binary.NativeEndian.PutUint64(b[offArg:], e.Arg)
	binary.NativeEndian.PutUint32(b[offTid:], e.Tid)
	binary.NativeEndian.PutUint32(b[offTgid:], e.Tgid)
	binary.NativeEndian.PutUint32(b[offTid2:], e.Tid2)
	binary.NativeEndian.PutUint32(b[offTgid2:], e.Tgid2)
	binary.NativeEndian.PutUint32(b[offCPU:], e.CPU)
	binary.NativeEndian.PutUint32(b[offKind:], uint32(e.Kind))
	binary.NativeEndian.PutUint64(b[offArg2:], e.Arg2)
}

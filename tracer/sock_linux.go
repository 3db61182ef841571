package tracer

import (
	"fmt"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// sockLayout is where ProxyHooks' programs read a socket, from the
// kernel's BTF: struct sock's protocol, type and port pair, and the
// sequence numbers of struct tcp_sock that place a record in the byte
// stream.
type sockLayout struct {
	protocol, typ, ports        int32 // struct sock: sk_protocol, sk_type, __sk_common.skc_portpair
	rcvNxt, copiedSeq, writeSeq int32 // struct tcp_sock
}

func sockOffsets() (sockLayout, error) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return sockLayout{}, fmt.Errorf("%w: %v", ErrNoBTF, err)
	}
	var sock, common, tcp *btf.Struct
	for _, t := range []struct {
		name string
		s    **btf.Struct
	}{{"sock", &sock}, {"sock_common", &common}, {"tcp_sock", &tcp}} {
		if err := spec.TypeByName(t.name, t.s); err != nil {
			return sockLayout{}, fmt.Errorf("%w: struct %s: %v", ErrNoBTF, t.name, err)
		}
	}
	var l sockLayout
	for _, f := range []struct {
		s    *btf.Struct
		name string
		dst  *int32
	}{
		{sock, "sk_protocol", &l.protocol}, {sock, "sk_type", &l.typ}, {sock, "__sk_common", &l.ports},
		{tcp, "rcv_nxt", &l.rcvNxt}, {tcp, "copied_seq", &l.copiedSeq}, {tcp, "write_seq", &l.writeSeq},
	} {
		off, ok := memberOffset(f.s, f.name)
		if !ok {
			return sockLayout{}, fmt.Errorf("%w: struct %s has no %s", ErrKernel, f.s.Name, f.name)
		}
		*f.dst = off
	}
	pair, ok := memberOffset(common, "skc_portpair")
	if !ok {
		return sockLayout{}, fmt.Errorf("%w: struct sock_common has no skc_portpair", ErrKernel)
	}
	l.ports += pair
	return l, nil
}

// sockSlots bounds the sockets sk_data_ready records (an LRU hash: a
// socket closed long ago, whose address a new socket may take, ages out).
const sockSlots = 1 << 16

// valOff is a stack word below keyOff: the value of a map update.
const valOff = keyOff - 8

// The protocol numbers the programs keep (include/uapi/linux/in.h,
// linux/net.h).
const (
	ipprotoTCP = 6
	sockStream = 1
)

// proxyPrograms are ProxyHooks' programs but the wake-up's, in the order
// they are attached: the receives last, so that no receive is recorded
// while its send could not be (Analyze drops the arrivals of a receive
// forwarded unseen, but cannot tell which receive that was).
func (b *builder) proxyPrograms() []program {
	return []program{
		{"sched_switch", b.switchProg},
		{"sched_process_fork", b.forkProg},
		{"softirq_entry", func() (asm.Instructions, error) { return b.softirqProg(KindSoftirqEntry, true) }},
		{"softirq_exit", func() (asm.Instructions, error) { return b.softirqProg(KindSoftirqExit, true) }},
		{"sk_data_ready", b.dataReadyProg},
		{"sock_send_length", func() (asm.Instructions, error) { return b.sockLenProg(KindSend) }},
		{"sock_recv_length", func() (asm.Instructions, error) { return b.sockLenProg(KindRecv) }},
	}
}

// readSeq reads the u32 at off in the struct tcp_sock at r7 into the
// event's Tid2. struct sock is the type the tracepoint gives, and the
// verifier bounds a direct load by it, so the read goes through
// bpf_probe_read_kernel.
func readSeq(off int32) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, evBase+offTid2),
		asm.Mov.Imm(asm.R2, 4),
		asm.Mov.Reg(asm.R3, asm.R7),
		asm.Add.Imm(asm.R3, off),
		asm.FnProbeReadKernel.Call(),
	}
}

// sockFields stores the socket at r7 and its port pair in the event.
func (b *builder) sockFields() asm.Instructions {
	return asm.Instructions{
		asm.StoreMem(asm.RFP, evBase+offArg, asm.R7, asm.DWord),
		asm.LoadMem(asm.R3, asm.R7, int16(b.sock.ports), asm.Word),
		asm.StoreMem(asm.RFP, evBase+offTgid2, asm.R3, asm.Word),
	}
}

// sock_recv_length(struct sock *sk, int ret, int flags),
// sock_send_length(sk, ret, flags), after the call: recorded for a
// followed task that moved bytes on a TCP socket, whose address goes into
// socks so that sk_data_ready records its arrivals from then on.
func (b *builder) sockLenProg(k Kind) (asm.Instructions, error) {
	seqOff := b.sock.copiedSeq
	if k == KindSend {
		seqOff = b.sock.writeSeq
	}
	return b.done(prologue(),
		current(),
		b.follows(offTid, offTgid),
		asm.Instructions{
			asm.Ja.Label("out"),
			arg(asm.R7, 0).WithSymbol("emit"),
			asm.LoadMem(asm.R3, asm.R7, int16(b.sock.protocol), asm.Half),
			asm.JNE.Imm(asm.R3, ipprotoTCP, "out"),
			asm.LoadMem(asm.R3, asm.R7, int16(b.sock.typ), asm.Half),
			asm.JNE.Imm(asm.R3, sockStream, "out"),
			arg(asm.R3, 1),
			asm.LSh.Imm(asm.R3, 32),
			asm.ArSh.Imm(asm.R3, 32),
			asm.JSLE.Imm(asm.R3, 0, "out"),
			asm.StoreMem(asm.RFP, evBase+offArg2, asm.R3, asm.DWord),
		},
		b.sockFields(),
		readSeq(seqOff),
		asm.Instructions{asm.StoreMem(asm.RFP, keyOff, asm.R7, asm.DWord)},
		b.lookupKey(b.o.socks),
		asm.Instructions{
			asm.JNE.Imm(asm.R0, 0, "known"),
			asm.Mov.Imm(asm.R1, 1),
			asm.StoreMem(asm.RFP, valOff, asm.R1, asm.DWord),
			b.mapPtr(asm.R1, b.o.socks),
			asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, keyOff),
			asm.Mov.Reg(asm.R3, asm.RFP),
			asm.Add.Imm(asm.R3, valOff),
			asm.Mov.Imm(asm.R4, 0), // BPF_ANY
			asm.FnMapUpdateElem.Call(),
			asm.StoreImm(asm.RFP, evBase+offKind, int64(k), asm.Word).WithSymbol("known"),
		},
		b.emitTail())
}

// sk_data_ready(const struct sock *sk): recorded for the sockets in
// socks. It runs for every socket on the machine, in the context that
// queued the data, so the socket is the only filter.
func (b *builder) dataReadyProg() (asm.Instructions, error) {
	return b.done(prologue(),
		asm.Instructions{
			arg(asm.R7, 0),
			asm.StoreMem(asm.RFP, keyOff, asm.R7, asm.DWord),
		},
		b.lookupKey(b.o.socks),
		asm.Instructions{asm.JEq.Imm(asm.R0, 0, "out")},
		current(),
		b.sockFields(),
		readSeq(b.sock.rcvNxt),
		asm.Instructions{asm.StoreImm(asm.RFP, evBase+offKind, int64(KindDataReady), asm.Word)},
		b.emitTail())
}

// sched_process_fork(struct task_struct *parent, struct task_struct
// *child): a followed process's new child process is followed from here,
// by the kernel, before it runs (an atomic or into tgids: user space may
// set another bit of the word, and another CPU may fork); a new thread is
// followed already, and recorded so that user space counts it.
func (b *builder) forkProg() (asm.Instructions, error) {
	return b.done(prologue(),
		asm.Instructions{arg(asm.R7, 0)}, b.taskIDs(asm.R7, offTid, offTgid),
		asm.Instructions{arg(asm.R7, 1)}, b.taskIDs(asm.R7, offTid2, offTgid2),
		b.bitSet(b.o.tgids, offTgid),
		asm.Instructions{
			asm.Ja.Label("out"),
			asm.LoadMem(asm.R1, asm.RFP, evBase+offTgid2, asm.Word).WithSymbol("emit"),
			asm.LoadMem(asm.R2, asm.RFP, evBase+offTgid, asm.Word),
			asm.JEq.Reg(asm.R1, asm.R2, "record"),
			asm.RSh.Imm(asm.R1, 6),
			asm.StoreMem(asm.RFP, keyOff, asm.R1, asm.Word),
		},
		b.lookupKey(b.o.tgids),
		asm.Instructions{
			asm.JEq.Imm(asm.R0, 0, "record"),
			asm.LoadMem(asm.R2, asm.RFP, evBase+offTgid2, asm.Word),
			asm.And.Imm(asm.R2, 63),
			asm.Mov.Imm(asm.R1, 1),
			asm.LSh.Reg(asm.R1, asm.R2),
			atomic(asm.OrAtomic, asm.R0, asm.R1),
			asm.StoreImm(asm.RFP, evBase+offKind, int64(KindFork), asm.Word).WithSymbol("record"),
		},
		b.emitTail())
}

package relay

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

// gatePaused is the gates bit that holds a direction in user space; the
// low bits count passed bytes, far below it.
const gatePaused = 1 << 63

// gate is source key's word in the mapped gates array: an array map's
// values start at the mapping's first byte, 8-byte aligned
// (kernel/bpf/arraymap.c, array_map_mmap).
func (o *sockmapObjs) gate(key uint32) *uint64 {
	return (*uint64)(unsafe.Pointer(&o.gateMem[8*key]))
}

// The sockmap engine's kernel side: three maps and one sk_skb program.
//
//   - targets (BPF_MAP_TYPE_SOCKMAP, no program attached): every relayed
//     socket, client at key 2*slot, upstream at 2*slot+1. The redirect
//     helper looks the destination up here.
//   - verdict (BPF_MAP_TYPE_SOCKMAP, the stream-verdict program attached):
//     the same sockets, inserted only once both are in targets. A socket's
//     psock takes its programs from the map it joins (net/core/sock_map.c,
//     sock_map_link), so a socket that is only in targets has no verdict
//     program yet and its bytes wait in its receive queue; once it joins
//     verdict its peer is already a valid redirect target, so no skb can be
//     redirected to a missing key and dropped.
//   - peers (BPF_MAP_TYPE_HASH): socket cookie (SO_COOKIE, the value
//     bpf_get_socket_cookie returns) → the peer's targets key and two
//     counters the program adds to atomically: bytes and skbs redirected.
//     The bytes tell the close path when everything the kernel took from a
//     socket has reached its peer (see sockmapEngine.drained).
//   - limits (BPF_MAP_TYPE_ARRAY, by targets key of the source): the byte
//     count past which the program tells user space, through events
//     (BPF_MAP_TYPE_RINGBUF), that a direction has moved another credit's
//     worth, so that the relay can check how much the kernel holds for its
//     destination (see sockmapEngine.credit). The program sets the limit to
//     the maximum as it signals: one event per credit, not per skb.
//   - gates (BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, by targets key of the
//     source): 0 while the direction is carried by the kernel. Otherwise
//     gatePaused (flow control holds the direction) plus the bytes the
//     program has passed up to the source's own queue that user space has
//     not yet written to the destination. Both sides change it with atomic
//     instructions only (the program's BPF_ATOMIC fetch-add, the relay's
//     sync/atomic on the mapped page), so that the handover back to the
//     kernel cannot lose a passed skb (see sockmapEngine.catchUp).
type sockmapObjs struct {
	targets *ebpf.Map
	verdict *ebpf.Map
	peers   *ebpf.Map
	limits  *ebpf.Map
	gates   *ebpf.Map
	events  *ebpf.Map
	prog    *ebpf.Program
	gateMem []byte // gates mapped (BPF_F_MMAPABLE): user space's atomics
}

// peerValue is the peers map's value, laid out as the program reads it.
type peerValue struct {
	Peer  uint32 // targets key of the destination
	Next  uint32 // TCP sequence number just past the last byte the verdict has seen
	Bytes uint64 // skb->len summed over redirected skbs
	Skbs  uint64
	Seen  uint32 // 1 once Next holds a sequence number
	_     uint32
	Dup   uint64 // bytes the verdict had seen already, cut off before they went on
	// TrimFailed counts skbs whose seen bytes could not be cut off
	// (bpf_skb_adjust_room failed: no memory to pull them into the head).
	TrimFailed uint64
}

const (
	peerOffPeer       = 0
	peerOffNext       = 4
	peerOffBytes      = 8
	peerOffSkbs       = 16
	peerOffSeen       = 24
	peerOffDup        = 32
	peerOffTrimFailed = 40
	peerValSize       = 48
)

// eventsSize is the ring buffer's size (a power of two pages): 16,384
// pending events of 16 bytes (an 8-byte header and the 4-byte key, padded
// to 8). A full ring drops the event, and with it that direction's flow
// control until the connection closes: the relay's thread reads the ring
// at every wake-up, long before 16,384 directions have each moved a credit.
const eventsSize = 256 << 10

// skbOffLen is offsetof(struct __sk_buff, len) (include/uapi/linux/bpf.h).
// skbOffSeq is offsetof(struct __sk_buff, cb[0]): for an sk_skb program
// the kernel maps cb[] onto the start of skb->cb (sk_skb_convert_ctx_access,
// net/core/filter.c), where TCP keeps struct tcp_skb_cb, whose first field
// is the skb's starting sequence number (include/net/tcp.h).
const (
	skbOffLen = 0
	skbOffSeq = 48
)

// seenBroken in peers' Seen marks a direction whose seen bytes could not
// be cut off (see seenGuard).
const seenBroken = 2

// adjustRoomMax is the most bytes one bpf_skb_adjust_room call may cut
// from an sk_skb (sk_skb_adjust_room, net/core/filter.c: 0xfff), and
// trimCalls the calls the program makes at most, enough for any skb TCP
// queues on loopback (64 KiB and a little).
const (
	adjustRoomMax = 0xfff
	trimCalls     = 20
)

// sk_skb verdicts (include/uapi/linux/bpf.h, enum sk_action).
const (
	skDrop = 0
	skPass = 1
)

// verdictProgram is the stream verdict, in BPF assembly so that building
// hoplat needs no C compiler:
//
//	if (skb->len == 0) return SK_DROP  // a bare FIN: see below
//	cookie = bpf_get_socket_cookie(skb)
//	v = bpf_map_lookup_elem(&peers, &cookie)
//	if (!v) return SK_PASS          // not a relayed socket: leave it alone
//	src = v->peer ^ 1
//	g = bpf_map_lookup_elem(&gates, &src)
//	if (g && *g) {                    // paused, or passed bytes not yet written on
//		if (__sync_fetch_and_add(g, skb->len)) return SK_PASS  // to the source's queue, for user space
//		__sync_fetch_and_add(g, -skb->len)  // reopened meanwhile: this skb goes through the kernel
//	}
//	__sync_fetch_and_add(&v->bytes, skb->len)
//	__sync_fetch_and_add(&v->skbs, 1)
//	lim = bpf_map_lookup_elem(&limits, &src)
//	if (lim && v->bytes > *lim) { *lim = ~0; bpf_ringbuf_output(&events, &src, 4, 0) }
//	return bpf_sk_redirect_map(skb, &targets, v->peer, 0)   // 0: egress of the peer
//
// A bare FIN reaches the verdict as an skb of length 0 (tcp_read_skb hands
// over every skb in the receive queue). Redirected, the destination's send
// returns 0, which sk_psock_backlog (net/core/skmsg.c) takes for a hard
// error: it reports EPIPE on the destination and stops its transmission
// for good. Dropping it loses nothing: the FIN is already in the socket's
// state (tcp_fin), where the relay's thread sees it.
//
// A passed skb goes to the source psock's ingress_msg queue
// (sk_psock_verdict_apply, __SK_PASS), charged to the source's receive
// memory, so TCP's window closes as it fills; read(2) on the source takes
// it from there (tcp_bpf_recvmsg_parser, net/ipv4/tcp_bpf.c). The socket
// never leaves the verdict map under load: sk_psock_verdict_recv reads the
// program once per skb, after tcp_read_skb has unlinked it, and applies
// __SK_DROP when it finds none, so a removal racing the receive path
// frees an skb TCP has already acknowledged.
//
// Flags 0 (not BPF_F_INGRESS) queues the skb for transmission on the peer
// socket: the kernel sends it from the psock's work queue
// (net/core/skmsg.c, sk_psock_backlog), no user thread involved.
func verdictProgram(peers, targets, limits, gates, events *ebpf.Map) (asm.Instructions, error) {
	var err error
	mapPtr := func(dst asm.Register, m *ebpf.Map) asm.Instruction {
		ins := asm.LoadMapPtr(dst, 0)
		if e := ins.AssociateMap(m); e != nil && err == nil {
			err = e
		}
		return ins
	}
	loadPeers := mapPtr(asm.R1, peers)
	loadTargets := mapPtr(asm.R2, targets)
	loadLimits := mapPtr(asm.R1, limits)
	loadGates := mapPtr(asm.R1, gates)
	loadEvents := mapPtr(asm.R1, events)
	if err != nil {
		return nil, err
	}
	return slices.Concat(asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1), // r6 = skb
		asm.LoadMem(asm.R1, asm.R6, skbOffLen, asm.Word),
		asm.JEq.Imm(asm.R1, 0, "drop"),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.FnGetSocketCookie.Call(),
		asm.StoreMem(asm.RFP, -8, asm.R0, asm.DWord),
	}, lookup(loadPeers, -8, "pass"), asm.Instructions{
		asm.Mov.Reg(asm.R7, asm.R0), // r7 = v
	}, seenGuard(loadEvents), asm.Instructions{
		asm.LoadMem(asm.R8, asm.R7, peerOffPeer, asm.Word).WithSymbol("fresh"), // r8 = peer key
		asm.Mov.Reg(asm.R1, asm.R8),
		asm.Xor.Imm(asm.R1, 1),
		asm.StoreMem(asm.RFP, -16, asm.R1, asm.Word), // src key
	}, lookup(loadGates, -16, "count"), asm.Instructions{
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.JEq.Imm(asm.R1, 0, "count"),
		asm.LoadMem(asm.R1, asm.R6, skbOffLen, asm.Word),
		asm.FetchAdd.Mem(asm.R0, asm.R1, asm.DWord, 0), // r1 = gate before
		asm.JNE.Imm(asm.R1, 0, "pass"),
		asm.LoadMem(asm.R1, asm.R6, skbOffLen, asm.Word),
		asm.Mov.Imm(asm.R2, 0),
		asm.Sub.Reg(asm.R2, asm.R1),
		asm.AddAtomic.Mem(asm.R0, asm.R2, asm.DWord, 0),
		asm.LoadMem(asm.R1, asm.R6, skbOffLen, asm.Word).WithSymbol("count"),
		asm.AddAtomic.Mem(asm.R7, asm.R1, asm.DWord, peerOffBytes),
		asm.Mov.Imm(asm.R1, 1),
		asm.AddAtomic.Mem(asm.R7, asm.R1, asm.DWord, peerOffSkbs),
		asm.LoadMem(asm.R9, asm.R7, peerOffBytes, asm.DWord), // r9 = bytes so far
	}, lookup(loadLimits, -16, "redirect"), asm.Instructions{
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.JLE.Reg(asm.R9, asm.R1, "redirect"),
		asm.Mov.Imm(asm.R1, -1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
	}, tellRelay(loadEvents), asm.Instructions{
		asm.Mov.Reg(asm.R1, asm.R6).WithSymbol("redirect"),
		asm.Mov.Reg(asm.R3, asm.R8),
		loadTargets,
		asm.Mov.Imm(asm.R4, 0),
		asm.FnSkRedirectMap.Call(),
		asm.Return(),
		asm.Mov.Imm(asm.R0, skPass).WithSymbol("pass"),
		asm.Return(),
		asm.Mov.Imm(asm.R0, skDrop).WithSymbol("drop"),
		asm.Return(),
	}), nil
}

// lookup is bpf_map_lookup_elem on the map loadMap points r1 at, with
// the key on the stack at fp+key; it jumps to miss when the key is absent,
// and leaves r0 pointing at the value otherwise.
func lookup(loadMap asm.Instruction, key int32, miss string) asm.Instructions {
	return asm.Instructions{
		loadMap,
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, key),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, miss),
	}
}

// seenGuard cuts off the bytes of an skb that the verdict has already
// seen, with r6 the skb and r7 the source's peers value; it ends at
// "fresh", or returns SK_DROP for an skb that holds nothing new:
//
//	seq = TCP_SKB_CB(skb)->seq; len = skb->len
//	if (v->seen && (s32)(v->next - seq) > 0) {     // starts before what is new
//		over = v->next - seq
//		if (over >= len) { v->dup += len; return SK_DROP }
//		v->dup += over
//		for (i = 0; i < trimCalls && over > 0; i++) {
//			n = min(over, 0xfff)
//			if (bpf_skb_adjust_room(skb, -n, 0, 0)) {   // see below
//				v->trim_failed++; v->seen = seenBroken
//				bpf_ringbuf_output(&events, &src, 4, 0); return SK_DROP
//			}
//			over -= n
//		}
//		v->next = seq + len
//	} else { v->seen = 1; v->next = seq + len }
//	// and first of all: if (v->seen == seenBroken) return SK_DROP
//
// Why: on bulk streams the verdict now and then meets bytes it has seen
// (measured here: 4 of 40 1 GiB streams, each time a whole 65,483-byte
// segment), and before this guard the destination got them twice. TCP's
// other readers would have skipped them: tcp_recvmsg and tcp_read_sock
// start each skb at copied_seq - seq, as TCP may queue a segment that
// starts before rcv_nxt (tcp_data_queue, "partial packet"), but
// tcp_read_skb hands the verdict every skb whole (net/ipv4/tcp.c). Cutting the seen bytes off before the verdict
// decides also keeps copied_seq right: tcp_eat_skb advances it by the
// skb's length as the verdict left it. The socket's lock serialises the
// verdict per socket, so next and seen need no atomics.
//
// Cutting pulls the bytes into the skb's linear head (pskb_may_pull), an
// atomic allocation that can fail under memory pressure: measured here, 1
// of 40 1 GiB streams, after 16,417 of 65,483 bytes. Then neither this skb
// nor any later one of the direction may go on (the destination would get
// the seen bytes twice, or a gap): the direction is marked broken, every
// skb dropped, and the relay's thread, woken through the ring, resets both
// connections, as for any error it cannot hide.
func seenGuard(loadEvents asm.Instruction) asm.Instructions {
	g := asm.Instructions{
		asm.LoadMem(asm.R1, asm.R6, skbOffSeq, asm.Word), // r1 = seq
		asm.LoadMem(asm.R2, asm.R6, skbOffLen, asm.Word), // r2 = len
		asm.Mov.Reg(asm.R3, asm.R1),
		asm.Add.Reg(asm.R3, asm.R2), // r3 = seq + len: the new next
		asm.LoadMem(asm.R4, asm.R7, peerOffSeen, asm.Word),
		asm.JEq.Imm(asm.R4, 0, "first"),
		asm.JNE.Imm(asm.R4, 1, "drop"), // broken: nothing more goes on
		asm.LoadMem(asm.R4, asm.R7, peerOffNext, asm.Word),
		asm.Sub.Reg(asm.R4, asm.R1),
		asm.LSh.Imm(asm.R4, 32),
		asm.ArSh.Imm(asm.R4, 32), // r4 = (s32)(next - seq)
		asm.JSLE.Imm(asm.R4, 0, "advance"),
		asm.JSLT.Reg(asm.R4, asm.R2, "trim"),
		asm.AddAtomic.Mem(asm.R7, asm.R2, asm.DWord, peerOffDup),
		asm.Mov.Imm(asm.R0, skDrop),
		asm.Return(),
		asm.AddAtomic.Mem(asm.R7, asm.R4, asm.DWord, peerOffDup).WithSymbol("trim"),
		asm.StoreMem(asm.R7, peerOffNext, asm.R3, asm.Word),
		asm.Mov.Reg(asm.R9, asm.R4), // r9 = bytes still to cut
	}
	// Unrolled: the verifier need not prove a loop ends.
	for range trimCalls {
		g = append(g,
			asm.JEq.Imm(asm.R9, 0, "fresh"),
			asm.Mov.Reg(asm.R2, asm.R9),
			asm.JLE.Imm(asm.R2, adjustRoomMax, "cut"+strconv.Itoa(len(g))),
			asm.Mov.Imm(asm.R2, adjustRoomMax),
			asm.Sub.Reg(asm.R9, asm.R2).WithSymbol("cut"+strconv.Itoa(len(g))),
			asm.Mov.Imm(asm.R5, 0),
			asm.Sub.Reg(asm.R5, asm.R2),
			asm.Mov.Reg(asm.R2, asm.R5), // len_diff = -n
			asm.Mov.Reg(asm.R1, asm.R6),
			asm.Mov.Imm(asm.R3, 0),
			asm.Mov.Imm(asm.R4, 0),
			asm.FnSkbAdjustRoom.Call(),
			asm.JNE.Imm(asm.R0, 0, "trimfail"),
		)
	}
	g = append(g,
		asm.JEq.Imm(asm.R9, 0, "fresh"), // else more than trimCalls could cut
		asm.Mov.Imm(asm.R1, 1).WithSymbol("trimfail"),
		asm.AddAtomic.Mem(asm.R7, asm.R1, asm.DWord, peerOffTrimFailed),
		asm.Mov.Imm(asm.R1, seenBroken),
		asm.StoreMem(asm.R7, peerOffSeen, asm.R1, asm.Word),
		// Tell the relay's thread, with the source's key, as a credit does.
		asm.LoadMem(asm.R1, asm.R7, peerOffPeer, asm.Word),
		asm.Xor.Imm(asm.R1, 1),
		asm.StoreMem(asm.RFP, -16, asm.R1, asm.Word),
	)
	g = append(g, tellRelay(loadEvents)...)
	return append(g,
		asm.Ja.Label("drop"),
		asm.Mov.Imm(asm.R4, 1).WithSymbol("first"),
		asm.StoreMem(asm.R7, peerOffSeen, asm.R4, asm.Word),
		asm.StoreMem(asm.R7, peerOffNext, asm.R3, asm.Word).WithSymbol("advance"),
	)
}

// tellRelay wakes the relay's thread through the events ring with the
// source's 4-byte key, which the program has stored at fp-16
// (bpf_ringbuf_output(&events, fp-16, 4, 0)); it clobbers r1 to r5.
func tellRelay(loadEvents asm.Instruction) asm.Instructions {
	return asm.Instructions{
		loadEvents,
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.Mov.Imm(asm.R3, 4),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
	}
}

// errBPF marks the failures that mean this kernel or this process cannot
// run the engine at all (bpf(2) refused, a map or program type missing),
// as opposed to a bad configuration.
var errBPF = errors.New("relay: engine sockmap: kernel refused")

// errNoCapBPF is bpf(2)'s EPERM to a process that holds neither CAP_BPF nor
// CAP_SYS_ADMIN. cilium/ebpf words every EPERM from map creation as a
// RLIMIT_MEMLOCK hint, but since Linux 5.11 map memory is charged to the
// memory cgroup instead, and EPERM means the capability is missing.
var errNoCapBPF = fmt.Errorf("%w: needs root or CAP_BPF", errBPF)

// bpfRefused is the error for a step of newSockmapObjs that bpf(2)
// refused: the missing capability when that is the cause, else the kernel's
// words.
func bpfRefused(op string, err error) error {
	if errors.Is(err, unix.EPERM) && !capableOfBPF() {
		return fmt.Errorf("%w (%s: %w)", errNoCapBPF, op, unix.EPERM)
	}
	return fmt.Errorf("%w: %s: %w", errBPF, op, err)
}

// capableOfBPF reports whether the calling thread's effective capabilities
// include CAP_BPF or CAP_SYS_ADMIN (which before Linux 5.8, without
// CAP_BPF, is what bpf(2) asks for); an unreadable set counts as capable,
// so that the kernel's own words are kept.
func capableOfBPF() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return true
	}
	has := func(c int) bool { return data[c/32].Effective&(1<<(c%32)) != 0 }
	return has(unix.CAP_BPF) || has(unix.CAP_SYS_ADMIN)
}

// newSockmapObjs creates the maps for conns connections, loads the
// program and attaches it to verdict.
func newSockmapObjs(conns int) (*sockmapObjs, error) {
	o := &sockmapObjs{}
	fail := func(op string, err error) (*sockmapObjs, error) {
		o.close()
		return nil, bpfRefused(op, err)
	}
	var err error
	sockmap := func(name string) (*ebpf.Map, error) {
		return ebpf.NewMap(&ebpf.MapSpec{
			Name: name, Type: ebpf.SockMap, KeySize: 4, ValueSize: 8, MaxEntries: uint32(2 * conns),
		})
	}
	if o.targets, err = sockmap("hoplat_targets"); err != nil {
		return fail("create sockmap targets", err)
	}
	if o.verdict, err = sockmap("hoplat_verdict"); err != nil {
		return fail("create sockmap verdict", err)
	}
	if o.peers, err = ebpf.NewMap(&ebpf.MapSpec{
		Name: "hoplat_peers", Type: ebpf.Hash, KeySize: 8, ValueSize: peerValSize, MaxEntries: uint32(2 * conns),
	}); err != nil {
		return fail("create hash peers", err)
	}
	if o.limits, err = ebpf.NewMap(&ebpf.MapSpec{
		Name: "hoplat_limits", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: uint32(2 * conns),
	}); err != nil {
		return fail("create array limits", err)
	}
	if o.gates, err = ebpf.NewMap(&ebpf.MapSpec{
		Name: "hoplat_gates", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: uint32(2 * conns),
		Flags: unix.BPF_F_MMAPABLE,
	}); err != nil {
		return fail("create array gates", err)
	}
	size := (16*conns + unix.Getpagesize() - 1) &^ (unix.Getpagesize() - 1)
	if o.gateMem, err = unix.Mmap(o.gates.FD(), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err != nil {
		return fail("mmap array gates", err)
	}
	if o.events, err = ebpf.NewMap(&ebpf.MapSpec{
		Name: "hoplat_events", Type: ebpf.RingBuf, MaxEntries: eventsSize,
	}); err != nil {
		return fail("create ringbuf events", err)
	}
	insns, err := verdictProgram(o.peers, o.targets, o.limits, o.gates, o.events)
	if err != nil {
		return fail("assemble", err)
	}
	if o.prog, err = ebpf.NewProgram(&ebpf.ProgramSpec{
		Name: "hoplat_verdict", Type: ebpf.SkSKB, AttachType: ebpf.AttachSkSKBStreamVerdict,
		Instructions: insns, License: "GPL",
	}); err != nil {
		return fail("load sk_skb program", err)
	}
	if err := link.RawAttachProgram(link.RawAttachProgramOptions{
		Target: o.verdict.FD(), Program: o.prog, Attach: ebpf.AttachSkSKBStreamVerdict,
	}); err != nil {
		return fail("attach stream verdict", err)
	}
	return o, nil
}

// close releases the program and the maps; the kernel detaches the program
// and drops every socket's psock when the last reference to a map goes.
func (o *sockmapObjs) close() {
	if o.gateMem != nil {
		unix.Munmap(o.gateMem)
	}
	for _, m := range []*ebpf.Map{o.verdict, o.targets, o.peers, o.limits, o.gates, o.events} {
		if m != nil {
			m.Close()
		}
	}
	if o.prog != nil {
		o.prog.Close()
	}
	*o = sockmapObjs{}
}

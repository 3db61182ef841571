package sockets

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI (include/uapi/linux/io_uring.h) this file uses.
const (
	uringOpRecvmsg = 10 // IORING_OP_RECVMSG, Linux 5.3
	uringOpSend    = 26 // IORING_OP_SEND, Linux 5.6
	uringOpRecv    = 27 // IORING_OP_RECV, Linux 5.6

	// IORING_SETUP_SUBMIT_ALL (Linux 5.18): an operation that fails at
	// submission does not stop the ones queued after it, so every queued
	// operation completes in the io_uring_enter that submits it.
	uringSetupSubmitAll = 1 << 7
	uringEnterGetEvents = 1 << 0 // IORING_ENTER_GETEVENTS

	uringOffSQEs = 0x10000000 // IORING_OFF_SQES: the mmap offset of the SQE array
)

type uringSQOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type uringCQOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  uringSQOffsets
	cqOff                                                                  uringCQOffsets
}

// uringSQE is struct io_uring_sqe, 64 bytes.
type uringSQE struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off, addr     uint64
	len, msgFlags uint32
	userData      uint64
	bufIndex      uint16
	personality   uint16
	spliceFDIn    int32
	addr3, pad2   uint64
}

// uringCQE is struct io_uring_cqe, 16 bytes.
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// batch is a Batch's ring, mapped once. The submission queue's index array
// is the identity, so the operation at the queue's position t is SQE t&mask;
// only this side writes the tail, so queue reads it without an atomic.
type batch struct {
	fd      int
	size    int
	rings   []byte // SQ and CQ rings, one mapping (IORING_FEAT_SINGLE_MMAP)
	sqeMem  []byte
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqes    []uringSQE
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    []uringCQE
	queued  int
	ops     []uint8     // op i's opcode
	bufs    [][]byte    // op i's buffer: held, so that it lives in the heap (no stack move) until Do has returned
	stamps  []*StampBuf // op i's recvmsg header, for RecvStamped
	results []int32     // op i's res: bytes, or -errno
}

// NewBatch sets up a Batch for up to size operations at a time.
func NewBatch(size int) (*Batch, error) {
	if size < 1 || size > 4096 {
		return nil, fmt.Errorf("sockets: batch of %d operations: want 1..4096", size)
	}
	p := uringParams{flags: uringSetupSubmitAll}
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(size), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, os.NewSyscallError("io_uring_setup", e)
	}
	b := &Batch{batch{fd: int(fd), size: size}}
	if err := b.mapRings(&p); err != nil {
		b.Close()
		return nil, err
	}
	b.ops = make([]uint8, size)
	b.bufs = make([][]byte, size)
	b.stamps = make([]*StampBuf, size)
	b.results = make([]int32, size)
	return b, nil
}

func (b *batch) mapRings(p *uringParams) error {
	const featSingleMmap = 1 << 0 // IORING_FEAT_SINGLE_MMAP, Linux 5.4
	if p.features&featSingleMmap == 0 {
		return fmt.Errorf("sockets: io_uring without IORING_FEAT_SINGLE_MMAP: %w", errors.ErrUnsupported)
	}
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*uint32(unsafe.Sizeof(uringCQE{})))
	var err error
	if b.rings, err = unix.Mmap(b.fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return os.NewSyscallError("mmap io_uring rings", err)
	}
	sqeBytes := int(p.sqEntries) * int(unsafe.Sizeof(uringSQE{}))
	if b.sqeMem, err = unix.Mmap(b.fd, uringOffSQEs, sqeBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return os.NewSyscallError("mmap io_uring sqes", err)
	}
	base := unsafe.Pointer(unsafe.SliceData(b.rings))
	at := func(off uint32) *uint32 { return (*uint32)(unsafe.Add(base, off)) }
	b.sqHead, b.sqTail, b.sqMask = at(p.sqOff.head), at(p.sqOff.tail), *at(p.sqOff.ringMask)
	b.cqHead, b.cqTail, b.cqMask = at(p.cqOff.head), at(p.cqOff.tail), *at(p.cqOff.ringMask)
	b.cqes = unsafe.Slice((*uringCQE)(unsafe.Add(base, p.cqOff.cqes)), p.cqEntries)
	b.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(unsafe.SliceData(b.sqeMem))), p.sqEntries)
	array := unsafe.Slice(at(p.sqOff.array), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	return nil
}

// Close releases the ring. It is idempotent.
func (b *Batch) Close() error {
	if b.sqeMem != nil {
		unix.Munmap(b.sqeMem)
		b.sqeMem = nil
	}
	if b.rings != nil {
		unix.Munmap(b.rings)
		b.rings = nil
	}
	if b.fd >= 0 {
		unix.Close(b.fd)
		b.fd = -1
	}
	return nil
}

// Len is how many operations are queued; Cap how many fit.
func (b *Batch) Len() int { return b.queued }
func (b *Batch) Cap() int { return b.size }

// Reset empties the batch for the next one.
func (b *Batch) Reset() {
	clear(b.bufs[:b.queued])
	clear(b.stamps[:b.queued])
	b.queued = 0
}

// Recv queues a receive into p from the non-blocking stream socket fd. The
// batch must not be full.
func (b *Batch) Recv(fd int, p []byte) BatchOp {
	op, _ := b.queue(uringOpRecv, fd, p, 0)
	return op
}

// Send queues a send of p to the non-blocking stream socket fd, with
// MSG_NOSIGNAL (a peer gone is EPIPE, as with SendNonblock). The batch
// must not be full.
func (b *Batch) Send(fd int, p []byte) BatchOp {
	op, _ := b.queue(uringOpSend, fd, p, unix.MSG_NOSIGNAL)
	return op
}

// RecvStamped queues a receive into p from the TCP socket fd, which has
// receive stamps on (EnableRXTimestamps), as a recvmsg(2) through sb, the
// socket's own StampBuf; after Do, Result is the receive's outcome and
// sb.Stamp() the kernel's stamp of the bytes, as ReadStamped gives them.
func (b *Batch) RecvStamped(fd int, p []byte, sb *StampBuf) BatchOp {
	sb.prepare(p)
	op, sqe := b.queue(uringOpRecvmsg, fd, nil, 0)
	b.bufs[op] = p
	b.stamps[op] = sb
	sqe.addr, sqe.len = uint64(uintptr(unsafe.Pointer(&sb.sys.msg))), 1 // one msghdr, as liburing's prep_recvmsg
	return op
}

// queue fills the next SQE with op on fd and p and returns it.
func (b *Batch) queue(op uint8, fd int, p []byte, flags uint32) (BatchOp, *uringSQE) {
	i := b.queued
	if i >= b.size {
		panic("sockets: Batch is full")
	}
	b.queued++
	b.ops[i] = op
	b.bufs[i] = p
	sqe := &b.sqes[(*b.sqTail+uint32(i))&b.sqMask]
	*sqe = uringSQE{
		opcode:   op,
		fd:       int32(fd),
		addr:     uint64(uintptr(unsafe.Pointer(unsafe.SliceData(p)))),
		len:      uint32(len(p)),
		msgFlags: flags | unix.MSG_DONTWAIT, // EAGAIN now, not a wait for readiness
		userData: uint64(i),
	}
	return BatchOp(i), sqe
}

// Do submits every queued operation and returns once all have completed.
// It is a raw system call (see rawSock): every operation completes inside
// it, so the scheduler need not know. An error means the ring itself
// failed (io_uring_enter refused, say for want of memory): then only the
// operations Completed says finished have a Result, the others were never
// issued, and the Batch is to be closed.
func (b *Batch) Do() error {
	n := b.queued
	if n == 0 {
		return nil
	}
	for i := range n {
		b.results[i] = notDone
	}
	tail := *b.sqTail + uint32(n)
	atomic.StoreUint32(b.sqTail, tail)
	head := *b.cqHead
	for got := 0; ; {
		for ctail := atomic.LoadUint32(b.cqTail); head != ctail; head++ {
			c := &b.cqes[head&b.cqMask]
			if c.userData < uint64(n) {
				b.results[c.userData] = c.res
				got++
			}
		}
		atomic.StoreUint32(b.cqHead, head)
		if got == n {
			return nil
		}
		// Submission progress is read from the ring's head, not from
		// the call's return: an EINTR may end a call that submitted.
		unsent := tail - atomic.LoadUint32(b.sqHead)
		_, _, e := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(b.fd), uintptr(unsent), uintptr(n-got), uringEnterGetEvents, 0, 0)
		if e != 0 && e != unix.EINTR {
			return os.NewSyscallError("io_uring_enter", e)
		}
	}
}

// notDone marks an operation whose completion Do has not seen: no errno is
// that large.
const notDone = math.MinInt32

// Completed says whether op completed in the last Do, which matters only
// after Do failed.
func (b *Batch) Completed(op BatchOp) bool { return b.results[op] != notDone }

// Result is op's outcome after Do, as RecvNonblock or one sendto(2) would
// give it: for a receive, the bytes read, io.EOF at the end of the stream,
// ErrWouldBlock when nothing was queued; for a send, the bytes written,
// which may be fewer than asked (the socket filled up: send the rest with
// SendNonblock, which says ErrWouldBlock if it is still full), or
// ErrWouldBlock when none fitted. An interrupted operation (EINTR) reads as
// ErrInterrupted: nothing was moved, try it again with a call of its own.
func (b *Batch) Result(op BatchOp) (int, error) {
	res := b.results[op]
	switch {
	case res > 0:
		return int(res), nil
	case res == 0 && b.ops[op] != uringOpSend && len(b.bufs[op]) > 0:
		return 0, io.EOF
	case res == 0:
		return 0, nil
	}
	e := unix.Errno(-res)
	switch e {
	case unix.EAGAIN:
		return 0, ErrWouldBlock
	case unix.EINTR:
		return 0, ErrInterrupted
	}
	switch b.ops[op] {
	case uringOpSend:
		return 0, os.NewSyscallError("sendto", e)
	case uringOpRecvmsg:
		return 0, os.NewSyscallError("recvmsg", e)
	default:
		return 0, os.NewSyscallError("recvfrom", e)
	}
}

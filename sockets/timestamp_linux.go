package sockets

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// stampOOB holds one SCM_TIMESTAMPING message (CMSG_SPACE of three
// timespecs: 64 bytes on 64-bit Linux) with room to spare, so that an
// unexpected extra message truncates (MSG_CTRUNC) rather than overruns.
const stampOOB = 128

type stampSys struct {
	msg unix.Msghdr
	iov unix.Iovec
	oob [stampOOB]byte
}

// rxFlags asks for software timestamps of received data
// (Documentation/networking/timestamping.rst): RX_SOFTWARE makes the
// kernel stamp each skb when the stack first sees it (netif_rx for
// loopback, before the TCP receive queue), SOFTWARE makes recvmsg report
// that stamp.
const rxFlags = unix.SOF_TIMESTAMPING_RX_SOFTWARE | unix.SOF_TIMESTAMPING_SOFTWARE

// enableRX turns receive timestamps on for fd, or says why it cannot.
func enableRX(fd int) error {
	domain, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return os.NewSyscallError("getsockopt SO_DOMAIN", err)
	}
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return os.NewSyscallError("getsockopt SO_TYPE", err)
	}
	if domain == unix.AF_UNIX && typ == unix.SOCK_STREAM {
		return ErrNoRXTimestamps
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPING, rxFlags); err != nil {
		return os.NewSyscallError("setsockopt SO_TIMESTAMPING", err)
	}
	return nil
}

// recv makes one recvmsg(2) into p and returns the kernel's receive
// timestamp of the data, zero when the message carried none. raw skips the
// scheduler's syscall bookkeeping, for sockets that never sleep in the
// kernel (see FD.rw).
func (b *StampBuf) recv(fd int, p []byte, raw bool) (int, time.Time, error) {
	s := &b.sys
	b.prepare(p)
	var r uintptr
	var e syscall.Errno
	if raw {
		r, _, e = unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&s.msg)), 0)
	} else {
		r, _, e = unix.Syscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&s.msg)), 0)
	}
	if e != 0 {
		return 0, time.Time{}, e
	}
	return int(r), b.Stamp(), nil
}

// prepare points the recvmsg(2) header at p and the control buffer.
func (b *StampBuf) prepare(p []byte) {
	s := &b.sys
	s.iov.Base = unsafe.SliceData(p)
	s.iov.SetLen(len(p))
	s.msg = unix.Msghdr{Iov: &s.iov, Control: &s.oob[0]}
	s.msg.SetIovlen(1)
	s.msg.SetControllen(len(s.oob))
}

// Stamp is the kernel's receive stamp of the bytes the last read through b
// returned (ReadStamped, Batch.RecvStamped), zero if they carried none.
func (b *StampBuf) Stamp() time.Time {
	s := &b.sys
	if s.msg.Flags&unix.MSG_CTRUNC != 0 {
		return time.Time{}
	}
	ts, _ := parseRXStamp(s.oob[:min(int(s.msg.Controllen), len(s.oob))])
	return ts
}

// Field widths of struct cmsghdr and struct timespec on this platform
// (cmsg_len is a size_t; SO_TIMESTAMPING, not _NEW, reports the
// platform's own timespec).
const (
	cmsgLenSize  = int(unsafe.Sizeof(unix.Cmsghdr{}.Len))
	timespecSize = int(unsafe.Sizeof(unix.Timespec{}))
	tsSecSize    = int(unsafe.Sizeof(unix.Timespec{}.Sec))
)

// parseRXStamp finds the SCM_TIMESTAMPING message in a control buffer and
// returns its software stamp, ts[0] of struct scm_timestamping (ts[1] is
// unused, ts[2] the hardware stamp). It reads the bytes without assuming
// alignment and allocates nothing.
func parseRXStamp(oob []byte) (time.Time, bool) {
	hdr := unix.SizeofCmsghdr
	for len(oob) >= hdr {
		var l int
		if cmsgLenSize == 8 {
			v := binary.NativeEndian.Uint64(oob)
			if v > uint64(len(oob)) {
				return time.Time{}, false
			}
			l = int(v)
		} else {
			l = int(binary.NativeEndian.Uint32(oob))
		}
		if l < hdr || l > len(oob) {
			return time.Time{}, false
		}
		level := int32(binary.NativeEndian.Uint32(oob[cmsgLenSize:]))
		typ := int32(binary.NativeEndian.Uint32(oob[cmsgLenSize+4:]))
		data := oob[hdr:l]
		if level == unix.SOL_SOCKET && typ == unix.SCM_TIMESTAMPING && len(data) >= 3*timespecSize {
			var sec, nsec int64
			if tsSecSize == 8 {
				sec = int64(binary.NativeEndian.Uint64(data))
				nsec = int64(binary.NativeEndian.Uint64(data[8:]))
			} else {
				sec = int64(int32(binary.NativeEndian.Uint32(data)))
				nsec = int64(int32(binary.NativeEndian.Uint32(data[4:])))
			}
			if (sec == 0 && nsec == 0) || nsec < 0 || nsec >= 1e9 {
				return time.Time{}, false
			}
			return time.Unix(sec, nsec), true
		}
		next := unix.CmsgSpace(l - hdr)
		if next > len(oob) {
			return time.Time{}, false
		}
		oob = oob[next:]
	}
	return time.Time{}, false
}

// EnableRXTimestamps asks the kernel to stamp the data f receives
// (SO_TIMESTAMPING, software receive stamps), for ReadStamped. On a UNIX
// stream socket it returns ErrNoRXTimestamps.
func (f *FD) EnableRXTimestamps() error {
	if err := enableRX(f.Sysfd()); err != nil {
		return fmt.Errorf("sockets: enable RX timestamps on fd %d: %w", f.Sysfd(), err)
	}
	return nil
}

// ReadStamped reads into p as Read does (io.EOF, ErrWouldBlock, Spin
// retrying) with recvmsg(2), and returns the kernel's receive timestamp of
// the bytes read: for TCP, of the last segment the read consumed. The
// timestamp is zero when the data carried none (timestamps not enabled, or
// data queued before they were). time.Since(ts) at the return is how long
// the bytes waited for the reader to run: its wake-up delay plus the read.
// b is the socket's own buffer; a read allocates nothing.
func (f *FD) ReadStamped(p []byte, b *StampBuf) (int, time.Time, error) {
	if len(p) == 0 {
		return 0, time.Time{}, nil
	}
	if !f.hold() {
		return 0, time.Time{}, ErrClosed
	}
	defer f.release()
	for {
		n, ts, err := b.recv(f.fd, p, f.mode == Spin)
		switch {
		case err == nil && n > 0:
			return n, ts, nil
		case err == nil:
			return 0, time.Time{}, io.EOF
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN && f.Mode() == Spin:
			continue // Interrupt's shutdown(2) turns this into EOF
		case err == unix.EAGAIN:
			return 0, time.Time{}, ErrWouldBlock
		}
		return 0, time.Time{}, os.NewSyscallError("recvmsg", err)
	}
}

// ReadStampedHeld is ReadHeld (held_linux.go) with the kernel's receive
// timestamp of the bytes read, as ReadStamped returns it: a Blocking FD
// made ready by SetHeld, whose goroutine keeps its P while it sleeps in
// recvmsg(2). It repeats the call after its SO_RCVTIMEO expires, yields to
// the scheduler on EINTR (how sysmon's preemption reaches a raw call,
// rawio_linux.go), and reports io.EOF at the peer's FIN or after
// Interrupt, ErrClosed after Close. b is the socket's own buffer; a read
// allocates nothing.
func (f *FD) ReadStampedHeld(p []byte, b *StampBuf) (int, time.Time, error) {
	if len(p) == 0 {
		return 0, time.Time{}, nil
	}
	for {
		// Raw only while the goroutines holding Ps leave one for the
		// rest of the program, judged from seenProcs as Held.Read does
		// (held_linux.go); through the scheduler, refreshing it, else.
		raw := spareP()
		if !raw {
			refreshProcs()
		}
		n, ts, err := b.recv(f.Sysfd(), p, raw)
		switch {
		case err == nil && n > 0:
			return n, ts, nil
		case err == nil:
			return 0, time.Time{}, io.EOF
		case err == unix.EINTR:
			runtime.Gosched()
			refreshProcs() // the world may have stopped: see seenProcs
			continue
		case err == unix.EAGAIN:
			refreshProcs()
			continue // SO_RCVTIMEO expired
		case err == unix.EBADF:
			return 0, time.Time{}, ErrClosed
		}
		return 0, time.Time{}, os.NewSyscallError("recvmsg", err)
	}
}

// StampedReader reads a connection that Go's netpoller owns (a *net.TCPConn)
// with receive timestamps, waiting in the netpoller as the connection's own
// Read does and honouring its deadlines. Like StampBuf it is made once per
// connection: a Read allocates nothing.
type StampedReader struct {
	rc   syscall.RawConn
	buf  StampBuf
	read func(fd uintptr) bool // bound once: a method value per call would allocate
	p    []byte
	n    int
	ts   time.Time
	err  error
}

// NewStampedReader enables receive timestamps on c's socket and returns a
// reader for it. On a UNIX stream connection it returns ErrNoRXTimestamps.
func NewStampedReader(c syscall.Conn) (*StampedReader, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("sockets: stamped reader for %T: %w", c, err)
	}
	var eerr error
	if err := rc.Control(func(fd uintptr) { eerr = enableRX(int(fd)) }); err != nil {
		return nil, fmt.Errorf("sockets: stamped reader for %T: %w", c, err)
	}
	if eerr != nil {
		return nil, fmt.Errorf("sockets: stamped reader for %T: %w", c, eerr)
	}
	r := &StampedReader{rc: rc}
	r.read = r.readFD
	return r, nil
}

// Read reads into p and returns the kernel's receive timestamp of the
// bytes, as FD.ReadStamped does; it returns io.EOF at the peer's FIN and
// the connection's error (os.ErrDeadlineExceeded, net.ErrClosed) when it
// has one.
func (r *StampedReader) Read(p []byte) (int, time.Time, error) {
	if len(p) == 0 {
		return 0, time.Time{}, nil
	}
	r.p = p
	err := r.rc.Read(r.read)
	r.p = nil
	if err != nil {
		return 0, time.Time{}, err
	}
	return r.n, r.ts, r.err
}

// readFD is RawConn.Read's callback: false sends the netpoller waiting.
func (r *StampedReader) readFD(fd uintptr) bool {
	for {
		n, ts, err := r.buf.recv(int(fd), r.p, false)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return false
		case err != nil:
			r.n, r.ts, r.err = 0, time.Time{}, os.NewSyscallError("recvmsg", err)
		case n == 0:
			r.n, r.ts, r.err = 0, time.Time{}, io.EOF
		default:
			r.n, r.ts, r.err = n, ts, nil
		}
		return true
	}
}

package relay

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/sockets"
)

// pipe is the kernel buffer the splice engine moves a direction's bytes
// through: socket → pipe → socket, never into user space. A connection holds
// one only while bytes sit in it; drained pipes go back to their loop, so
// idle connections cost no pipe and busy ones no pipe2(2) per chunk.
type pipe struct {
	r, w int
	size int  // capacity in bytes (F_GETPIPE_SZ): the most one splice in moves
	big  bool // grown to streamPipe: counted in loop.bigPipes
}

// maxPipes bounds the empty pipes a loop keeps.
const maxPipes = 64

// A direction that streams gets a pipe of streamPipe bytes. Each chunk
// costs two splice(2) whatever its size, and each splice out is one
// tcp_sendmsg with its skb allocation, loopback transmit and the
// receiver's wake-up; a 64 KiB pipe (16 slots, the default capacity)
// makes a 1 GiB stream 32,768 of them; a pipe sixteen times larger makes
// it sixteen times fewer, each call moving a whole pipe, as Go's own
// splice (the goroutine engine) does with its 1 MiB pipes
// (docs/measurements.md, "Splice pipes"). The splice loop already drains the pipe and
// the source to EAGAIN before it polls again (edge-triggered), so
// readiness costs nothing more per chunk; SPLICE_F_MOVE is a no-op since
// Linux 2.6.21 (splice(2)), and SPLICE_F_MORE would cork the last segment
// of a burst until the next write, which a request/response protocol does
// not send.
//
// 1 MiB is /proc/sys/fs/pipe-max-size's default, the most F_SETPIPE_SZ
// grants without CAP_SYS_RESOURCE (fcntl(2)). A pipe starts at
// Config.Buffer and grows only once a splice in fills it, which a small
// message never does: request/response traffic keeps small pipes. The
// capacity counts against the user's pipe-user-pages-soft (16,384 pages by
// default), past which new pipes of every process of the user get two
// slots: maxStreamPipes bounds a loop's big pipes to a quarter of it. What
// a big pipe holds are references to the source socket's pages, not
// copies.
const (
	streamPipeMax  = 1 << 20
	maxStreamPipes = 16
)

// streamPipeSize is the capacity a streaming direction's pipe grows to:
// streamPipeMax or the kernel's pipe-max-size if lower; 0 if that is no
// more than buffer, the size every pipe starts with.
func streamPipeSize(buffer int) int {
	size := streamPipeMax
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n < size {
			size = n
		}
	}
	if size <= buffer {
		return 0
	}
	return size
}

func (l *loop) getPipe() (*pipe, error) {
	if n := len(l.pipes); n > 0 {
		p := l.pipes[n-1]
		l.pipes = l.pipes[:n-1]
		return p, nil
	}
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	p := &pipe{r: fds[0], w: fds[1]}
	// F_SETPIPE_SZ rounds up to a power-of-two number of pages and
	// returns the capacity; failing (over /proc/sys/fs/pipe-max-size, or
	// the user's pipe pages) leaves the default, which only makes chunks
	// smaller.
	size, err := unix.FcntlInt(uintptr(p.w), unix.F_SETPIPE_SZ, l.e.r.cfg.Buffer)
	if err != nil {
		size, err = unix.FcntlInt(uintptr(p.w), unix.F_GETPIPE_SZ, 0)
	}
	if err != nil || size <= 0 {
		size = l.e.r.cfg.Buffer
	}
	p.size = size
	return p, nil
}

// growPipe gives p, which a splice in has just filled, streamPipe bytes of
// capacity, unless the loop has its share of big pipes already. Growing a
// pipe that holds bytes keeps them (fcntl(2): only shrinking below the
// content fails).
func (l *loop) growPipe(p *pipe) {
	want := l.e.streamPipe
	if want <= p.size || l.bigPipes >= maxStreamPipes {
		return
	}
	size, err := unix.FcntlInt(uintptr(p.w), unix.F_SETPIPE_SZ, want)
	if err != nil || size <= p.size {
		return
	}
	p.size, p.big = size, true
	l.bigPipes++
	l.e.grown.Add(1)
}

func (l *loop) putPipe(p *pipe) {
	if len(l.pipes) < maxPipes {
		l.pipes = append(l.pipes, p)
		return
	}
	l.closePipe(p)
}

// closePipe closes p and forgets it among the loop's big pipes.
func (l *loop) closePipe(p *pipe) {
	if p.big {
		l.bigPipes--
	}
	p.close()
}

func (p *pipe) close() {
	unix.Close(p.r)
	unix.Close(p.w)
}

// moveSplice splices one chunk from the source into a pipe and from the
// pipe to the destination. Where the kernel refuses splice for this pair
// (EINVAL: a socket family without splice_read) the connection falls back to
// read and write for good.
func (l *loop) moveSplice(c *conn, d int) (progress, error) {
	h := &c.dir[d]
	p, err := l.getPipe()
	if err != nil {
		return drained, err
	}
	c.lock()
	n, err := sockets.Splice(c.fd[d], p.w, p.size)
	c.unlock()
	switch {
	case err == unix.EAGAIN:
		l.putPipe(p)
		return drained, nil
	case err == unix.EINVAL || err == unix.ENOSYS:
		l.putPipe(p)
		c.noSplice = true
		if l.buf == nil {
			l.buf = make([]byte, l.e.r.cfg.Buffer)
		}
		return full, nil
	case err != nil:
		l.putPipe(p)
		return drained, err
	case n == 0:
		l.putPipe(p)
		return drained, io.EOF
	}
	l.count(d, int(n))
	if int(n) == p.size {
		l.growPipe(p)
	}
	h.pipe, h.inPipe, h.since = p, int(n), l.now
	if _, err := l.flushPipe(c, d); err != nil {
		return drained, err
	}
	// A short splice proves nothing: tcp_splice_read stops early when the
	// pipe runs out of slots (16 by default, one per skb fragment), with
	// data still queued. Read on until EAGAIN.
	return full, nil
}

// flushPipe splices what direction d holds in its pipe to the destination.
func (l *loop) flushPipe(c *conn, d int) (done bool, err error) {
	h := &c.dir[d]
	c.lock()
	defer c.unlock()
	for h.inPipe > 0 {
		n, err := sockets.Splice(h.pipe.r, c.fd[1-d], h.inPipe)
		if err == unix.EAGAIN {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if n == 0 {
			return false, errors.New("relay: splice to socket wrote nothing")
		}
		h.inPipe -= int(n)
	}
	l.putPipe(h.pipe)
	h.pipe = nil
	l.residence(h.since)
	return true, nil
}

package relay

import (
	"errors"
	"io"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/sockets"
)

// pipe is the kernel buffer the splice engine moves a direction's bytes
// through: socket → pipe → socket, never into user space. A connection holds
// one only while bytes sit in it; drained pipes go back to their loop, so
// idle connections cost no pipe and busy ones no pipe2(2) per chunk.
type pipe struct{ r, w int }

func (p *pipe) close() {
	unix.Close(p.r)
	unix.Close(p.w)
}

// maxPipes bounds the empty pipes a loop keeps.
const maxPipes = 64

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
	// F_SETPIPE_SZ rounds up to a power-of-two number of pages; failing
	// (over /proc/sys/fs/pipe-max-size) leaves the 64 KiB default, which
	// only makes chunks smaller.
	unix.FcntlInt(uintptr(p.w), unix.F_SETPIPE_SZ, l.e.r.cfg.Buffer)
	return p, nil
}

func (l *loop) putPipe(p *pipe) {
	if len(l.pipes) < maxPipes {
		l.pipes = append(l.pipes, p)
		return
	}
	p.close()
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
	c.lk.Lock()
	n, err := sockets.Splice(c.sock[d].Sysfd(), p.w, l.e.r.cfg.Buffer)
	c.lk.Unlock()
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
	c.lk.Lock()
	defer c.lk.Unlock()
	for h.inPipe > 0 {
		n, err := sockets.Splice(h.pipe.r, c.sock[1-d].Sysfd(), h.inPipe)
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

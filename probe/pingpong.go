package probe

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/sockets"
	"github.com/hoplat/hoplat/stats"
	"golang.org/x/sys/unix"
)

// kind is the kernel path a pair ping-pongs over.
type kind int

const (
	kindPipe kind = iota // two pipes: wake-up and switch, least kernel path
	kindUnix             // a UNIX stream socket pair
	kindTCP              // a loopback TCP connection
)

var kindNames = [...]string{"pipe", "unix", "tcp"}

func (k kind) String() string { return kindNames[k] }

// msgSize is what a pair sends each way: a small request, as pingpong's
// echo default, so a figure is latency, not bandwidth. A pipe sends one
// byte, an eventfd's worth of signal.
func (k kind) msgSize() int {
	if k == kindPipe {
		return 1
	}
	return 64
}

// A pair is two threads, each pinned to its CPU, that ping-pong messages:
// the initiator times each round trip, the responder echoes.
type pair struct {
	name      string
	kind      kind
	initCPU   int
	replyCPU  int
	initEnds  ends
	replyEnds ends
	fds       []*sockets.FD

	child *exec.Cmd // the responder, when it is another process (newProcessPair)

	cmds    chan time.Duration // a round's length; closed to finish
	results chan round
	wg      sync.WaitGroup
}

// ends is one thread's side: where it reads and writes. For a socket both
// are the same FD.
type ends struct {
	r, w *sockets.FD
	// done tells the other thread this one has finished: a FIN on a
	// socket, the write end's close on a pipe, so that its read returns
	// EOF and it finishes too.
	done func()
}

// round is what the initiator reports for one round.
type round struct {
	oneWay  time.Duration // median round trip, halved
	samples int
	err     error
}

// minSamples bounds a round from below: a slow machine gets a round
// longer than asked rather than a median of a handful.
const minSamples = 50

// maxSamples bounds the memory and a round's length on a fast machine.
const maxSamples = 1 << 15

func newPair(name string, k kind, initCPU, replyCPU int) (*pair, error) {
	p := &pair{name: name, kind: k, initCPU: initCPU, replyCPU: replyCPU}
	switch k {
	case kindPipe:
		r1, w1, err := sockets.Pipe()
		if err != nil {
			return nil, fmt.Errorf("probe: %s: %w", name, err)
		}
		r2, w2, err := sockets.Pipe()
		if err != nil {
			r1.Close()
			w1.Close()
			return nil, fmt.Errorf("probe: %s: %w", name, err)
		}
		p.fds = []*sockets.FD{r1, w1, r2, w2}
		p.initEnds = ends{r: r2, w: w1, done: func() { w1.Close() }}
		p.replyEnds = ends{r: r1, w: w2, done: func() { w2.Close() }}
	case kindUnix:
		a, b, err := sockets.SocketPair(sockets.Blocking)
		if err != nil {
			return nil, fmt.Errorf("probe: %s: %w", name, err)
		}
		p.fds = []*sockets.FD{a, b}
		p.initEnds = socketEnds(a)
		p.replyEnds = socketEnds(b)
	case kindTCP:
		a, b, err := tcpPair()
		if err != nil {
			return nil, fmt.Errorf("probe: %s: %w", name, err)
		}
		p.fds = []*sockets.FD{a, b}
		p.initEnds = socketEnds(a)
		p.replyEnds = socketEnds(b)
	}
	return p, nil
}

// newProcessPair is a pipe pair whose responder is another process, cat,
// pinned to cpu beside the initiator: each switch then changes address
// spaces, as a switch to a relay process does, and pays what that costs
// (page-table switch, and without PCID the TLB flushed and refilled) on
// top of the wake-up a pair of threads measures. cat copies its input to
// its output as it reads it, one read and one write a message, as the
// threads' responder does.
func newProcessPair(name string, cpu int) (*pair, error) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		return nil, fmt.Errorf("probe: %s: %w", name, err)
	}
	p, err := newPair(name, kindPipe, cpu, cpu)
	if err != nil {
		return nil, err
	}
	// The child gets its own descriptors for the responder's ends (dup:
	// os.File closes what it owns), and the pair keeps none of them.
	stdin, err := dupFile(p.replyEnds.r, "probe-stdin")
	if err != nil {
		p.closeFDs()
		return nil, fmt.Errorf("probe: %s: %w", name, err)
	}
	stdout, err := dupFile(p.replyEnds.w, "probe-stdout")
	if err != nil {
		stdin.Close()
		p.closeFDs()
		return nil, fmt.Errorf("probe: %s: %w", name, err)
	}
	p.replyEnds.r.Close()
	p.replyEnds.w.Close()
	p.child = exec.Command(cat)
	p.child.Stdin, p.child.Stdout = stdin, stdout
	return p, nil
}

func dupFile(f *sockets.FD, name string) (*os.File, error) {
	fd, err := unix.FcntlInt(uintptr(f.Sysfd()), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("fcntl F_DUPFD_CLOEXEC", err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (p *pair) closeFDs() {
	for _, f := range p.fds {
		f.Close()
	}
}

func socketEnds(f *sockets.FD) ends {
	return ends{r: f, w: f, done: func() { f.Shutdown(sockets.ShutWrite) }}
}

// tcpPair connects two loopback TCP sockets (TCP_NODELAY, as Go sets it)
// and detaches both from the netpoller as Blocking FDs.
func tcpPair() (*sockets.FD, *sockets.FD, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			c = nil
		}
		accepted <- c
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		ln.Close()
		<-accepted
		return nil, nil, err
	}
	s := <-accepted
	if s == nil {
		c.Close()
		return nil, nil, errors.New("accept on loopback failed")
	}
	a, err := sockets.Detach(c, sockets.Blocking)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	b, err := sockets.Detach(s, sockets.Blocking)
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	return a, b, nil
}

// start runs both threads, each pinned to its CPU, and returns once both
// are pinned, or with the error of the one that could not be.
func (p *pair) start() error {
	threads := 2
	if p.child != nil {
		err := affinity.StartOn(p.child, affinity.NewCPUSet(p.replyCPU))
		// The child holds its ends now, or failed to start: either way
		// the copies made for it go.
		p.child.Stdin.(*os.File).Close()
		p.child.Stdout.(*os.File).Close()
		if err != nil {
			p.child = nil
			p.closeFDs()
			return fmt.Errorf("probe: %s: %w", p.name, err)
		}
		threads = 1
	}
	p.cmds = make(chan time.Duration)
	p.results = make(chan round)
	pinned := make(chan error, 2)
	p.wg.Add(threads)
	if p.child == nil {
		go p.reply(pinned)
	}
	go p.initiate(pinned, p.cmds, p.results)
	var errs []error
	for range threads {
		if err := <-pinned; err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		p.stop()
		return fmt.Errorf("probe: %s: %w", p.name, err)
	}
	return nil
}

// pin locks the calling goroutine to a thread on cpu, and says on pinned
// whether it could: nil, or the failure named for the thread's role; on a
// failure the thread is to return. The goroutine must not unlock: when it
// returns still locked, the runtime ends the thread rather than hand a
// narrowed mask to other goroutines.
func pin(cpu int, role string, pinned chan<- error) bool {
	granted, err := affinity.PinThread(affinity.NewCPUSet(cpu))
	if err == nil && !granted.Equal(affinity.NewCPUSet(cpu)) {
		err = fmt.Errorf("pin to CPU %d: kernel granted %s", cpu, granted)
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", role, err)
	}
	pinned <- err
	return err == nil
}

func (p *pair) reply(pinned chan<- error) {
	defer p.wg.Done()
	defer p.replyEnds.done()
	if !pin(p.replyCPU, "responder", pinned) {
		return
	}
	buf := make([]byte, p.kind.msgSize())
	for {
		if err := readFull(p.replyEnds.r, buf); err != nil {
			return // EOF: the initiator has finished
		}
		if _, err := p.replyEnds.w.Write(buf); err != nil {
			return
		}
	}
}

func (p *pair) initiate(pinned chan<- error, cmds <-chan time.Duration, results chan<- round) {
	defer p.wg.Done()
	defer p.initEnds.done()
	if !pin(p.initCPU, "initiator", pinned) {
		return
	}
	buf := make([]byte, p.kind.msgSize())
	samples := make([]time.Duration, 0, maxSamples)
	var failed error
	for d := range cmds {
		if failed != nil {
			results <- round{err: failed}
			continue
		}
		samples = samples[:0]
		start := time.Now()
		for len(samples) < cap(samples) {
			t0 := time.Now()
			if _, err := p.initEnds.w.Write(buf); err != nil {
				failed = fmt.Errorf("write: %w", err)
				break
			}
			if err := readFull(p.initEnds.r, buf); err != nil {
				failed = fmt.Errorf("read: %w", err)
				break
			}
			t1 := time.Now()
			samples = append(samples, t1.Sub(t0))
			if el := t1.Sub(start); (el >= d && len(samples) >= minSamples) || el >= 10*d {
				break
			}
		}
		if failed != nil {
			results <- round{err: failed}
			continue
		}
		slices.Sort(samples)
		results <- round{oneWay: stats.MedianSorted(samples) / 2, samples: len(samples)}
	}
}

// run times one round of length d.
func (p *pair) run(d time.Duration) round {
	p.cmds <- d
	r := <-p.results
	if r.err != nil {
		r.err = fmt.Errorf("probe: %s: %w", p.name, r.err)
	}
	return r
}

// stop ends both threads and closes the descriptors: with no more rounds
// to run the initiator signals done, the responder's read returns EOF, and
// it signals done in turn.
func (p *pair) stop() {
	if p.cmds != nil {
		close(p.cmds)
		p.cmds = nil
	}
	p.wg.Wait()
	if p.child != nil {
		// The initiator's done closed the child's input: cat has read
		// EOF and exits.
		p.child.Wait()
		p.child = nil
	}
	p.closeFDs()
}

func readFull(f *sockets.FD, buf []byte) error {
	for done := 0; done < len(buf); {
		n, err := f.Read(buf[done:])
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrUnexpectedEOF
		}
		done += n
	}
	return nil
}

package responder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/sockets"
)

// Server is the responder: it listens on every address in Listen at once
// (TCP and UNIX side by side) and serves each accepted connection with
// Handler under the I/O model IO, on its own goroutine (its own pinned OS
// thread for blocking and spin).
type Server struct {
	Listen []sockets.Addr
	// IO is Netpoll when zero. Auto chooses per connection: Blocking while
	// at most AutoLimit connections are served so, Netpoll beyond.
	IO      iomodel.Model
	CPUs    []int // connection threads pinned round-robin over these; none when empty
	Handler Handler
	// ErrorLog receives connection errors other than a clean close; they
	// are dropped when nil.
	ErrorLog func(error)
	// Pinned, when set, learns the CPU each connection's thread was pinned
	// to (connections numbered from 0 in accept order), so a report can
	// say where the responder ran.
	Pinned func(conn, cpu int)

	mu      sync.Mutex
	lns     []*sockets.Listener
	addrs   []sockets.Addr
	conns   map[iomodel.Conn]struct{}
	next    int               // connections accepted, for round-robin pinning
	held    int               // connections Auto serves blocking now
	served  [iomodel.Auto]int // connections Auto served, by the model it chose
	heldMax int               // when > 0, lowers iomodel.AutoHeldMax (a test sets it)
	closing bool
	done    chan struct{} // closed by Close: wakes an accept backing off
	wg      sync.WaitGroup
}

// Start binds every listener (all or none) and starts serving.
func (s *Server) Start(ctx context.Context) error {
	if err := s.Bind(ctx); err != nil {
		return err
	}
	s.Serve()
	return nil
}

// Bind binds every listener, all or none, without accepting yet: a caller
// that announces its addresses (pongd's "listening" lines) does so between
// Bind and Serve.
func (s *Server) Bind(ctx context.Context) error {
	if s.Handler == nil {
		return errors.New("responder: server: no handler")
	}
	if len(s.Listen) == 0 {
		return errors.New("responder: server: no listen address")
	}
	s.conns = map[iomodel.Conn]struct{}{}
	s.done = make(chan struct{})
	for _, a := range s.Listen {
		ln, err := sockets.Listen(ctx, a)
		if err != nil {
			for _, l := range s.lns {
				l.Close()
			}
			s.lns = nil
			return err
		}
		s.lns = append(s.lns, ln)
		s.addrs = append(s.addrs, ln.Spec().FromNet(ln.Addr()))
	}
	return nil
}

// Serve starts accepting on every bound listener; Close stops it.
func (s *Server) Serve() {
	for _, ln := range s.lns {
		s.wg.Add(1)
		go s.accept(ln)
	}
}

// Addrs returns the dialable address of each listener, in Listen's order,
// with the ports the kernel chose.
func (s *Server) Addrs() []sockets.Addr { return s.addrs }

// Close stops accepting, wakes every connection's reader, and waits for
// every goroutine the server started. UNIX socket paths are removed.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closing && s.done != nil {
		close(s.done)
	}
	s.closing = true
	for _, ln := range s.lns {
		ln.Close()
	}
	for c := range s.conns {
		c.Interrupt()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

func (s *Server) logf(format string, a ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog(fmt.Errorf(format, a...))
	}
}

// Accept backoff when the process or system is out of file descriptors:
// accept(2) then fails at once, every time, until a connection closes, so
// the loop waits (5 ms doubling to 1 s, as net/http and hoprelay do)
// instead of spinning or giving up.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// outOfFDs reports the accept errors that a closing connection cures
// (accept(2): EMFILE, ENFILE, ENOBUFS, ENOMEM).
func outOfFDs(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}

func (s *Server) accept(ln *sockets.Listener) {
	defer s.wg.Done()
	unix := ln.Spec().IsUnix()
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if !outOfFDs(err) {
				s.logf("responder: accept on %s: %w", ln.Spec(), err)
				return
			}
			if backoff == 0 {
				// Once per episode: every retry would flood the log.
				s.logf("responder: accept on %s: %w; retrying every %v to %v until connections close", ln.Spec(), err, acceptBackoffMin, acceptBackoffMax)
			}
			backoff = min(max(2*backoff, acceptBackoffMin), acceptBackoffMax)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-s.done:
				t.Stop()
				return
			}
			continue
		}
		backoff = 0
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			c.Close()
			return
		}
		i := s.next
		s.next++
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c, i, unix)
	}
}

func (s *Server) serve(nc net.Conn, i int, unix bool) {
	defer s.wg.Done()
	peer := nc.RemoteAddr().String()
	m := s.IO
	if m == iomodel.Auto {
		m = s.autoHold()
		if m == iomodel.Blocking {
			defer s.autoRelease()
		}
	}
	cpu, unlock, err := iomodel.Pin(m, s.CPUs, i)
	defer unlock()
	if err != nil {
		nc.Close()
		s.logf("responder: serve %s: %w", peer, err)
		return
	}
	if cpu >= 0 && s.Pinned != nil {
		s.Pinned(i, cpu)
	}
	c, err := iomodel.Adopt(nc, m)
	if err != nil {
		s.logf("responder: serve %s: %w", peer, err)
		return
	}
	defer c.Close()
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	err = s.Handler.ServeConn(c, unix)
	s.mu.Lock()
	delete(s.conns, c)
	closing := s.closing
	s.mu.Unlock()
	if err != nil && !closing && !isDisconnect(err) {
		s.logf("responder: serve %s: %w", peer, err)
	}
}

// autoHold is the model Auto serves one more connection under, counted in
// held when it is Blocking (autoRelease uncounts it).
func (s *Server) autoHold() iomodel.Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := iomodel.Netpoll
	if s.held < s.AutoLimit() {
		m = iomodel.Blocking
		s.held++
	}
	s.served[m]++
	return m
}

// AutoLimit is how many connections at once an Auto server serves
// blocking: AutoPerCPU per CPU its connections may run on (CPUs, else the
// process's affinity mask), at most AutoHeldMax.
func (s *Server) AutoLimit() int {
	limit := iomodel.Limit(iomodel.CPUsFor(s.CPUs))
	if s.heldMax > 0 {
		limit = min(limit, s.heldMax)
	}
	return limit
}

func (s *Server) autoRelease() {
	s.mu.Lock()
	s.held--
	s.mu.Unlock()
}

// isDisconnect reports whether err is how a peer going away shows up.
func isDisconnect(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, sockets.ErrClosed) ||
		isReset(err)
}

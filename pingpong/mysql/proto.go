package mysql

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong"
)

// Protocol is the load client's side of MySQL: each session logs in with
// Client on its connection, prepares Workload's statements there, and runs
// one workload event per pingpong event.
type Protocol struct {
	Client   ClientConfig
	Workload *Workload
}

// Name is the protocol's name, as --proto takes it.
func (*Protocol) Name() string { return "mysql" }

// Open logs in on rw and readies the workload; both count as connection
// set-up. Each session draws its ids from its own generator, seeded afresh,
// so that threads do not share (and contend on) one.
func (p *Protocol) Open(rw io.ReadWriter, unix bool) (pingpong.Session, error) {
	if p.Workload == nil {
		return nil, errors.New("mysql: protocol: no workload")
	}
	c, err := login(rw, p.Client, unix)
	if err != nil {
		return nil, err
	}
	s, err := p.Workload.Prepare(c)
	if err != nil {
		return nil, asClientPrints(err)
	}
	return &session{s: s, rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}, nil
}

// MarshalJSON prints the protocol in a report's config, password redacted.
func (p *Protocol) MarshalJSON() ([]byte, error) {
	var w WorkloadConfig
	if p.Workload != nil {
		w = p.Workload.Config()
	}
	return json.Marshal(printedProtocol{
		User: p.Client.User, Password: redact(p.Client.Password), DB: p.Client.DB,
		Command: string(w.Command), Query: w.Query, PS: &w.PS, TableSize: w.TableSize,
		Tables: w.Tables, NoRangeSelects: w.NoRangeSelects, InStatement: w.InStatement, SkipTrx: w.SkipTrx,
		IgnoreErrors: ignoreList(w),
	})
}

// printedProtocol is a protocol as a report's config carries it.
type printedProtocol struct {
	User        string `json:"user"`
	Password    string `json:"password"` // redacted
	DB          string `json:"db"`
	Command     string `json:"command,omitempty"`
	Query       string `json:"query,omitempty"`
	PS          *bool  `json:"ps,omitempty"`
	TableSize   int    `json:"table_size,omitempty"`
	ConnectOnly bool   `json:"connect_only,omitempty"`

	// The oltp workloads' shape, as sysbench's options name it.
	Tables         int    `json:"tables,omitempty"`
	NoRangeSelects bool   `json:"no_range_selects,omitempty"`
	InStatement    int    `json:"in_statement,omitempty"`
	SkipTrx        bool   `json:"skip_trx,omitempty"`
	IgnoreErrors   string `json:"ignore_errors,omitempty"` // "1213,1020,1205,1047", "all" or "none"
}

// ignoreList prints the errors a workload retries as
// --mysql-ignore-errors takes them.
func ignoreList(w WorkloadConfig) string {
	switch {
	case w.Command == "":
		return ""
	case w.IgnoreAll:
		return "all"
	case len(w.IgnoreErrors) == 0:
		return "none"
	}
	b := make([]byte, 0, 32)
	for i, code := range w.IgnoreErrors {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(code), 10)
	}
	return string(b)
}

// session adapts a workload Session to pingpong.Session.
type session struct {
	s   *Session
	rng *rand.Rand
}

// Ignored is what the workload session retried: pingpong counts these
// as ignored errors (pingpong.Retrier).
func (s *session) Ignored() (int64, error) { return s.s.Ignored() }

// Event runs one workload event. It allocates nothing unless it fails.
func (s *session) Event() (int, error) {
	q, err := s.s.Event(s.rng)
	if err != nil {
		return q, asClientPrints(err)
	}
	return q, nil
}

// ConnectOnly is a protocol whose every event is a whole connection
// set-up: dial, handshake, COM_QUIT and close, so that its latency is what
// a client without a connection pool pays per request.
type ConnectOnly struct {
	Client ClientConfig
	// Dial opens each event's connection; ctx carries Timeout.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)
	// Timeout bounds one event's dial and handshake; 0 means 5 s.
	Timeout time.Duration
}

// Name is the protocol's name, as --proto takes it.
func (*ConnectOnly) Name() string { return "mysql" }

// Open logs in once on the worker's own connection, so that a wrong
// password fails the run at set-up rather than as every event's error,
// and quits; the events then dial their own connections.
func (p *ConnectOnly) Open(rw io.ReadWriter, unix bool) (pingpong.Session, error) {
	if p.Dial == nil {
		return nil, errors.New("mysql: connect-only: no dialer")
	}
	c, err := login(rw, p.Client, unix)
	if err != nil {
		return nil, err
	}
	if err := c.Quit(); err != nil {
		return nil, err
	}
	timeout := p.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	return &connectSession{p: p, unix: unix, timeout: timeout}, nil
}

// MarshalJSON prints the protocol in a report's config, password redacted.
func (p *ConnectOnly) MarshalJSON() ([]byte, error) {
	return json.Marshal(printedProtocol{
		User: p.Client.User, Password: redact(p.Client.Password), DB: p.Client.DB, ConnectOnly: true,
	})
}

type connectSession struct {
	p       *ConnectOnly
	unix    bool
	timeout time.Duration
}

// Event sets up one connection and tears it down. It runs no statement,
// so it counts none.
func (s *connectSession) Event() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	c, err := s.p.Dial(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	// A server that accepts but never greets would hold the event forever:
	// the timeout wakes the handshake's read.
	stop := context.AfterFunc(ctx, interrupter(c))
	defer stop()
	cl, err := login(c, s.p.Client, s.unix)
	if err != nil {
		return 0, err
	}
	return 0, cl.Quit()
}

// interrupter returns how to wake a read blocked on c from another
// goroutine: a raw fd's Interrupt, or a net.Conn's deadline (closing a
// net.Conn would do too, but the deferred Close then races it).
func interrupter(c io.ReadWriteCloser) func() {
	switch c := c.(type) {
	case interface{ Interrupt() }:
		return c.Interrupt
	case interface{ SetDeadline(time.Time) error }:
		return func() { c.SetDeadline(time.Unix(1, 0)) }
	}
	return func() { c.Close() }
}

// ServerError is an ERR packet from the server; callers count failures
// by Code.
type ServerError = wire.ServerError

// ClientError is a server's ERR as the mysql command-line client prints
// it, "ERROR 1146 (42S02): Table 'sbtest.t' doesn't exist", inside
// whatever context the error carried. errors.As still finds the
// *ServerError.
type ClientError struct {
	msg string
	err error
}

func (e *ClientError) Error() string { return e.msg }
func (e *ClientError) Unwrap() error { return e.err }

// login is Connect with a server's refusal worded as the mysql client
// prints it (asClientPrints).
func login(rw io.ReadWriter, cfg ClientConfig, unix bool) (*Client, error) {
	c, err := Connect(rw, cfg, unix)
	if err != nil {
		return nil, asClientPrints(err)
	}
	return c, nil
}

// asClientPrints rewrites the ServerError inside err, if any, in the
// client's form; a report's error samples then read as a user knows them.
func asClientPrints(err error) error {
	var se *wire.ServerError
	if !errors.As(err, &se) {
		return err
	}
	return &ClientError{msg: strings.Replace(err.Error(), se.Error(), se.ClientString(), 1), err: err}
}

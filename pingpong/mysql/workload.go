package mysql

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Command names one request shape a Workload sends per event.
type Command string

// The commands pingpong --command accepts.
const (
	CommandPing        Command = "ping"         // COM_PING
	CommandSelect1     Command = "select1"      // SELECT 1
	CommandPointSelect Command = "point-select" // sysbench oltp_point_select
	CommandOLTPRO      Command = "oltp-ro"      // sysbench oltp_read_only
	CommandQuery       Command = "query"        // the user's SQL
)

// ParseCommand returns the Command named s.
func ParseCommand(s string) (Command, error) {
	switch c := Command(s); c {
	case CommandPing, CommandSelect1, CommandPointSelect, CommandOLTPRO, CommandQuery:
		return c, nil
	}
	return "", fmt.Errorf("mysql: parse command %q: want ping, select1, point-select, oltp-ro or query", s)
}

// WorkloadConfig describes the statements of one event. The zero value with
// a Command set matches sysbench's defaults except for PS.
type WorkloadConfig struct {
	Command Command
	Query   string // the SQL for CommandQuery

	// TableSize is the id range point and range selects draw from, 1..
	// TableSize; 0 means 10000, sysbench's --table-size default.
	TableSize int
	// PS runs statements as COM_STMT_PREPARE once per connection and
	// COM_STMT_EXECUTE per event, as sysbench's default --db-ps-mode=auto
	// does against MySQL/MariaDB; false sends COM_QUERY text with the
	// values inlined, as --db-ps-mode=disable.
	PS bool
	// Table is the table name; "" means sbtest1.
	Table string
	// RangeSize is the width of oltp-ro's range selects; 0 means 100.
	RangeSize int
}

// Workload builds per-connection Sessions for one WorkloadConfig.
type Workload struct {
	cfg WorkloadConfig
}

// NewWorkload checks cfg and fills in its defaults.
func NewWorkload(cfg WorkloadConfig) (*Workload, error) {
	if _, err := ParseCommand(string(cfg.Command)); err != nil {
		return nil, err
	}
	if cfg.Command == CommandQuery && cfg.Query == "" {
		return nil, errors.New("mysql: workload query: no SQL given")
	}
	if cfg.TableSize < 0 || cfg.RangeSize < 0 {
		return nil, fmt.Errorf("mysql: workload: negative table size %d or range size %d", cfg.TableSize, cfg.RangeSize)
	}
	if cfg.TableSize == 0 {
		cfg.TableSize = 10000
	}
	if cfg.Table == "" {
		cfg.Table = "sbtest1"
	}
	if cfg.RangeSize == 0 {
		cfg.RangeSize = 100
	}
	return &Workload{cfg: cfg}, nil
}

// Config returns the configuration with defaults filled in.
func (w *Workload) Config() WorkloadConfig { return w.cfg }

// QueriesPerEvent is how many statements one event sends, counted as
// sysbench counts queries (BEGIN and COMMIT included).
func (w *Workload) QueriesPerEvent() int {
	if w.cfg.Command == CommandOLTPRO {
		return oltpQueries
	}
	return 1
}

// sysbench oltp_read_only's statements, in the order of one transaction.
const (
	oltpPointSelects = 10
	oltpQueries      = 2 + oltpPointSelects + 4
)

// A statement of the workload: SQL text around up to two integer values.
type stmtShape struct {
	prefix, middle, suffix string // text mode: prefix v1 middle v2 suffix
	params                 int
}

func (w *Workload) shapes() []stmtShape {
	t := w.cfg.Table
	point := stmtShape{prefix: "SELECT c FROM " + t + " WHERE id=", params: 1}
	rng := func(sel, order string) stmtShape {
		return stmtShape{prefix: "SELECT " + sel + " FROM " + t + " WHERE id BETWEEN ", middle: " AND ", suffix: order, params: 2}
	}
	switch w.cfg.Command {
	case CommandSelect1:
		return []stmtShape{{prefix: "SELECT 1"}}
	case CommandPointSelect:
		return []stmtShape{point}
	case CommandOLTPRO:
		return []stmtShape{
			{prefix: "BEGIN"},
			point,
			rng("c", ""),
			rng("SUM(k)", ""),
			rng("c", " ORDER BY c"),
			rng("DISTINCT c", " ORDER BY c"),
			{prefix: "COMMIT"},
		}
	case CommandQuery:
		return []stmtShape{{prefix: w.cfg.Query}}
	}
	return nil
}

// placeholder SQL for the prepared form of a shape.
func (s *stmtShape) preparedSQL() string {
	switch s.params {
	case 1:
		return s.prefix + "?" + s.suffix
	case 2:
		return s.prefix + "?" + s.middle + "?" + s.suffix
	}
	return s.prefix
}

// Session is one connection's state for a Workload: its prepared statements
// and a reused SQL buffer. Not safe for concurrent use.
type Session struct {
	w      *Workload
	c      *Client
	shapes []stmtShape
	stmts  []*Stmt // parallel to shapes when PS is on
	sql    []byte
}

// Prepare readies c for the workload, preparing its statements when PS is
// on.
func (w *Workload) Prepare(c *Client) (*Session, error) {
	s := &Session{w: w, c: c, shapes: w.shapes(), sql: make([]byte, 0, 256)}
	if w.cfg.PS && w.cfg.Command != CommandPing {
		for i := range s.shapes {
			st, err := c.Prepare(s.shapes[i].preparedSQL())
			if se := (*ServerError)(nil); errors.As(err, &se) && se.Code == ErUnsupportedPS {
				// sysbench falls back to text for statements the server
				// cannot prepare; so does the session (a nil entry).
				s.stmts = append(s.stmts, nil)
				continue
			}
			if err != nil {
				s.Close()
				return nil, fmt.Errorf("mysql: workload %s: %w", w.cfg.Command, err)
			}
			s.stmts = append(s.stmts, st)
			if st.Params() != s.shapes[i].params {
				s.Close()
				return nil, fmt.Errorf("mysql: workload %s: prepare %q: server counts %d parameters, the workload binds %d",
					w.cfg.Command, s.shapes[i].preparedSQL(), st.Params(), s.shapes[i].params)
			}
		}
	}
	return s, nil
}

// Close releases the session's prepared statements.
func (s *Session) Close() error {
	var first error
	for _, st := range s.stmts {
		if st == nil {
			continue
		}
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.stmts = nil
	return first
}

// Event runs one event — one ping, one SELECT 1, one point select, one
// oltp_read_only transaction or one user query — and returns how many
// statements it sent. Ids are drawn uniformly from 1..TableSize (sysbench
// master's default --rand-type; 1.0.20 defaults to "special").
func (s *Session) Event(rng *rand.Rand) (queries int, err error) {
	cfg := &s.w.cfg
	switch cfg.Command {
	case CommandPing:
		return 1, s.c.Ping()
	case CommandOLTPRO:
		return s.oltpReadOnly(rng)
	case CommandPointSelect:
		_, err := s.run(0, rng.Int64N(int64(cfg.TableSize))+1, 0)
		return 1, err
	}
	_, err = s.run(0, 0, 0)
	return 1, err
}

func (s *Session) oltpReadOnly(rng *rand.Rand) (int, error) {
	cfg := &s.w.cfg
	size := int64(cfg.TableSize)
	queries := 0
	run := func(i int, a, b int64) error {
		queries++
		_, err := s.run(i, a, b)
		return err
	}
	if err := run(0, 0, 0); err != nil {
		return queries, err
	}
	for range oltpPointSelects {
		if err := run(1, rng.Int64N(size)+1, 0); err != nil {
			return queries, err
		}
	}
	for i := 2; i <= 5; i++ {
		lo := rng.Int64N(size) + 1
		if err := run(i, lo, lo+int64(cfg.RangeSize)-1); err != nil {
			return queries, err
		}
	}
	return queries, run(6, 0, 0)
}

// run executes shape i with values a and b (as many as the shape takes).
func (s *Session) run(i int, a, b int64) (int, error) {
	sh := &s.shapes[i]
	if s.stmts != nil && s.stmts[i] != nil {
		switch sh.params {
		case 1:
			return s.stmts[i].Exec(a)
		case 2:
			return s.stmts[i].Exec(a, b)
		}
		return s.stmts[i].Exec()
	}
	if sh.params == 0 {
		return s.c.Query(sh.prefix)
	}
	q := append(s.sql[:0], sh.prefix...)
	q = strconv.AppendInt(q, a, 10)
	if sh.params == 2 {
		q = append(q, sh.middle...)
		q = strconv.AppendInt(q, b, 10)
	}
	q = append(q, sh.suffix...)
	s.sql = q
	return s.c.QueryBytes(q)
}

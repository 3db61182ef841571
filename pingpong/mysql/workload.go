package mysql

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/hoplat/hoplat/mysql/wire"
)

// Command names one request shape a Workload sends per event.
type Command string

// The commands pingpong --command accepts.
const (
	CommandPing        Command = "ping"         // COM_PING
	CommandSelect1     Command = "select1"      // SELECT 1
	CommandPointSelect Command = "point-select" // sysbench oltp_point_select
	CommandOLTPRO      Command = "oltp-ro"      // sysbench oltp_read_only
	CommandOLTPRW      Command = "oltp-rw"      // sysbench oltp_read_write
	CommandOLTPWO      Command = "oltp-wo"      // sysbench oltp_write_only
	CommandQuery       Command = "query"        // the user's SQL
)

// ParseCommand returns the Command named s.
func ParseCommand(s string) (Command, error) {
	if c := Command(s); slices.Contains(Commands, c) {
		return c, nil
	}
	return "", fmt.Errorf("mysql: parse command %q: want ping, select1, point-select, oltp-ro, oltp-rw, oltp-wo or query", s)
}

// isOLTP reports the commands built from sysbench's oltp_common.lua.
func (c Command) isOLTP() bool {
	return c == CommandOLTPRO || c == CommandOLTPRW || c == CommandOLTPWO
}

// DefaultIgnoreErrors are the server errors an event retries by default:
// sysbench 1.0's --mysql-ignore-errors default (1213 deadlock, 1020 record
// changed, 1205 lock wait timeout) and Galera's 1047 (WSREP has not yet
// prepared node for application use), which a cluster node answers while
// it is not in the primary component.
var DefaultIgnoreErrors = []uint16{wire.ErLockDeadlock, wire.ErCheckRead, wire.ErLockWaitTimeout, wire.ErUnknownCommand}

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
	// Table is the table name of a one-table workload; "" means sbtest1.
	// With Tables > 1 the tables are sbtest1..sbtestN, as sysbench names
	// them.
	Table string
	// RangeSize is the width of the range selects; 0 means 100.
	RangeSize int

	// Tables is sysbench's --tables: each statement group of an oltp
	// event (the point selects, each range kind, each update, the
	// delete and insert pair) picks its table uniformly from 1..Tables.
	// 0 means 1.
	Tables int
	// NoRangeSelects is sysbench's --range_selects=off: the oltp
	// workloads send no range selects.
	NoRangeSelects bool
	// InStatement, when above 0, turns each of the 10 point selects into
	// one SELECT c FROM sbtestN WHERE id IN (?, …) of InStatement ids:
	// the batch key lookup of RonDB's autobench (SB_USE_IN_STATEMENT,
	// sysbench 0.4's --oltp-use-in-statement).
	InStatement int
	// SkipTrx is sysbench's --skip_trx: no BEGIN and COMMIT, every
	// statement in autocommit.
	SkipTrx bool
	// IgnoreErrors are the server error codes on which an event is
	// retried from its first statement on the same connection, counted
	// as ignored, as sysbench's --mysql-ignore-errors does; nil means
	// DefaultIgnoreErrors, an empty slice none. IgnoreAll retries on any
	// server error.
	IgnoreErrors []uint16
	IgnoreAll    bool
}

// Workload builds per-connection Sessions for one WorkloadConfig.
type Workload struct {
	cfg    WorkloadConfig
	shapes []stmtShape
	index  [numKinds][]int // index[kind][table-1]: the shape of that statement on that table, or -1
	ignore [1 << 16 / 64]uint64
}

// The most placeholders an IN list may hold: the prepared statement's
// parameter count is two bytes.
const maxInStatement = 0xFFFF

// NewWorkload checks cfg and fills in its defaults.
func NewWorkload(cfg WorkloadConfig) (*Workload, error) {
	if _, err := ParseCommand(string(cfg.Command)); err != nil {
		return nil, err
	}
	if cfg.Command == CommandQuery && cfg.Query == "" {
		return nil, errors.New("mysql: workload query: no SQL given")
	}
	if cfg.TableSize < 0 || cfg.RangeSize < 0 || cfg.Tables < 0 {
		return nil, fmt.Errorf("mysql: workload: negative table size %d, range size %d or tables %d", cfg.TableSize, cfg.RangeSize, cfg.Tables)
	}
	if cfg.InStatement < 0 || cfg.InStatement > maxInStatement {
		return nil, fmt.Errorf("mysql: workload: in-statement %d: want 0 (off) to %d", cfg.InStatement, maxInStatement)
	}
	if cfg.TableSize == 0 {
		cfg.TableSize = 10000
	}
	if cfg.Tables == 0 {
		cfg.Tables = 1
	}
	if cfg.Tables > 1 && !cfg.Command.isOLTP() {
		return nil, fmt.Errorf("mysql: workload %s: tables %d: only the oltp commands spread over tables", cfg.Command, cfg.Tables)
	}
	if cfg.Tables > 1 && cfg.Table != "" {
		return nil, fmt.Errorf("mysql: workload: table %q names one table, tables %d asks for sbtest1..sbtest%d", cfg.Table, cfg.Tables, cfg.Tables)
	}
	if cfg.Table == "" && cfg.Tables == 1 {
		cfg.Table = "sbtest1"
	}
	if cfg.RangeSize == 0 {
		cfg.RangeSize = 100
	}
	if cfg.IgnoreErrors == nil {
		cfg.IgnoreErrors = slices.Clone(DefaultIgnoreErrors)
	}
	w := &Workload{cfg: cfg}
	for _, code := range cfg.IgnoreErrors {
		w.ignore[code/64] |= 1 << (code % 64)
	}
	w.build()
	return w, nil
}

// Config returns the configuration with defaults filled in.
func (w *Workload) Config() WorkloadConfig { return w.cfg }

// QueriesPerEvent is how many statements one event sends, counted as
// sysbench counts queries (BEGIN and COMMIT included).
func (w *Workload) QueriesPerEvent() int {
	cfg := &w.cfg
	if !cfg.Command.isOLTP() {
		return 1
	}
	n := 0
	if !cfg.SkipTrx {
		n += 2
	}
	if cfg.Command != CommandOLTPWO {
		n += oltpPointSelects
		if !cfg.NoRangeSelects {
			n += 4
		}
	}
	if cfg.Command != CommandOLTPRO {
		n += 4 // UPDATE index, UPDATE non-index, DELETE, INSERT
	}
	return n
}

// ignored reports whether a server error of this code is retried.
func (w *Workload) ignored(code uint16) bool {
	return w.cfg.IgnoreAll || w.ignore[code/64]&(1<<(code%64)) != 0
}

// sysbench's oltp_common.lua: 10 point selects per transaction.
const oltpPointSelects = 10

// stmtKind is one statement of sysbench's oltp_common.lua, or of the
// simpler commands.
type stmtKind uint8

const (
	kindBegin stmtKind = iota
	kindCommit
	kindPoint
	kindSimpleRange
	kindSumRange
	kindOrderRange
	kindDistinctRange
	kindIndexUpdate
	kindNonIndexUpdate
	kindDelete
	kindInsert
	kindSelect1
	kindUserQuery
	numKinds
)

// paramKind is how a placeholder is bound: an INT, or a CHAR as sysbench
// binds c and pad (text: quoted).
type paramKind uint8

const (
	paramInt paramKind = iota
	paramChar
)

// A statement of the workload: SQL text around its placeholders, text[0] ?
// text[1] ? … text[len(params)].
type stmtShape struct {
	text   []string
	params []paramKind
}

func newShape(params []paramKind, text ...string) stmtShape {
	return stmtShape{text: text, params: params}
}

var (
	oneInt  = []paramKind{paramInt}
	twoInts = []paramKind{paramInt, paramInt}
)

// build lays out every statement the workload may send, for every table:
// sysbench prepares each one on every table at connect.
func (w *Workload) build() {
	cfg := &w.cfg
	add := func(kind stmtKind, table int, s stmtShape) {
		if w.index[kind] == nil {
			w.index[kind] = make([]int, cfg.Tables)
			for i := range w.index[kind] {
				w.index[kind][i] = -1
			}
		}
		w.index[kind][table-1] = len(w.shapes)
		w.shapes = append(w.shapes, s)
	}
	switch cfg.Command {
	case CommandSelect1:
		add(kindSelect1, 1, newShape(nil, "SELECT 1"))
		return
	case CommandQuery:
		add(kindUserQuery, 1, newShape(nil, cfg.Query))
		return
	case CommandPing:
		return
	case CommandPointSelect:
		add(kindPoint, 1, pointShape(cfg.Table, 0))
		return
	}
	if !cfg.SkipTrx {
		add(kindBegin, 1, newShape(nil, "BEGIN"))
		add(kindCommit, 1, newShape(nil, "COMMIT"))
	}
	for n := 1; n <= cfg.Tables; n++ {
		t := cfg.Table
		if cfg.Tables > 1 {
			t = "sbtest" + strconv.Itoa(n)
		}
		if cfg.Command != CommandOLTPWO {
			add(kindPoint, n, pointShape(t, cfg.InStatement))
			if !cfg.NoRangeSelects {
				rng := func(sel, order string) stmtShape {
					return newShape(twoInts, "SELECT "+sel+" FROM "+t+" WHERE id BETWEEN ", " AND ", order)
				}
				add(kindSimpleRange, n, rng("c", ""))
				add(kindSumRange, n, rng("SUM(k)", ""))
				add(kindOrderRange, n, rng("c", " ORDER BY c"))
				add(kindDistinctRange, n, rng("DISTINCT c", " ORDER BY c"))
			}
		}
		if cfg.Command != CommandOLTPRO {
			add(kindIndexUpdate, n, newShape(oneInt, "UPDATE "+t+" SET k=k+1 WHERE id=", ""))
			add(kindNonIndexUpdate, n, newShape([]paramKind{paramChar, paramInt}, "UPDATE "+t+" SET c=", " WHERE id=", ""))
			add(kindDelete, n, newShape(oneInt, "DELETE FROM "+t+" WHERE id=", ""))
			add(kindInsert, n, newShape([]paramKind{paramInt, paramInt, paramChar, paramChar},
				"INSERT INTO "+t+" (id, k, c, pad) VALUES (", ", ", ", ", ", ", ")"))
		}
	}
}

// pointShape is sysbench's point select, or with in > 0 its IN-list form.
func pointShape(table string, in int) stmtShape {
	if in == 0 {
		return newShape(oneInt, "SELECT c FROM "+table+" WHERE id=", "")
	}
	s := stmtShape{params: make([]paramKind, in), text: make([]string, in+1)}
	s.text[0] = "SELECT c FROM " + table + " WHERE id IN ("
	for i := 1; i < in; i++ {
		s.text[i] = ", "
	}
	s.text[in] = ")"
	return s
}

// preparedSQL is the shape with placeholders.
func (s *stmtShape) preparedSQL() string {
	b := []byte(s.text[0])
	for i := range s.params {
		b = append(b, '?')
		b = append(b, s.text[i+1]...)
	}
	return string(b)
}

// Session is one connection's state for a Workload: its prepared statements
// and reused buffers. Not safe for concurrent use.
type Session struct {
	w     *Workload
	c     *Client
	stmts []*Stmt // parallel to w.shapes when PS is on; nil entries run as text
	sql   []byte
	vals  []bindValue
	c120  [len(cTemplate)]byte
	pad60 [len(padTemplate)]byte

	queries int // statements sent by the event under way, retries included
	ignored int64
	lastIgn error
}

// Prepare readies c for the workload, preparing its statements when PS is
// on.
func (w *Workload) Prepare(c *Client) (*Session, error) {
	s := &Session{w: w, c: c, sql: make([]byte, 0, 512), vals: make([]bindValue, 0, max(4, w.cfg.InStatement))}
	if w.cfg.PS && w.cfg.Command != CommandPing {
		for i := range w.shapes {
			sh := &w.shapes[i]
			st, err := c.Prepare(sh.preparedSQL())
			if se := (*wire.ServerError)(nil); errors.As(err, &se) && se.Code == wire.ErUnsupportedPS {
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
			if st.Params() != len(sh.params) {
				s.Close()
				return nil, fmt.Errorf("mysql: workload %s: prepare %q: server counts %d parameters, the workload binds %d",
					w.cfg.Command, sh.preparedSQL(), st.Params(), len(sh.params))
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

// Ignored returns how many server errors the session has retried its
// event after since it was prepared, and the last of them.
func (s *Session) Ignored() (int64, error) { return s.ignored, s.lastIgn }

// Event runs one event — one ping, one SELECT 1, one point select, one
// oltp transaction or one user query — and returns how many statements it
// sent. An error the workload ignores (IgnoreErrors) restarts the event
// from its first statement on the same connection, as sysbench restarts
// event(): no ROLLBACK, the next BEGIN ends what the failed transaction
// left open. Ids are drawn uniformly from 1..TableSize (sysbench master's
// default --rand-type; 1.0.20 defaults to "special").
func (s *Session) Event(rng *rand.Rand) (queries int, err error) {
	s.queries = 0
	for {
		err := s.event(rng)
		if err == nil || !s.ignorable(err) {
			return s.queries, err
		}
		s.ignored++
		s.lastIgn = err
	}
}

// ignorable reports a server error the workload retries. Apart from
// Event, so that the error's box is allocated only when there is one.
func (s *Session) ignorable(err error) bool {
	var se *wire.ServerError
	return errors.As(err, &se) && s.w.ignored(se.Code)
}

func (s *Session) event(rng *rand.Rand) error {
	cfg := &s.w.cfg
	switch cfg.Command {
	case CommandPing:
		s.queries++
		return s.c.Ping()
	case CommandPointSelect:
		return s.run(kindPoint, 1, s.ids(rng, 1))
	case CommandSelect1:
		return s.run(kindSelect1, 1, nil)
	case CommandQuery:
		return s.run(kindUserQuery, 1, nil)
	}
	return s.oltp(rng)
}

// oltp is oltp_common.lua's event: each statement group draws its table,
// then its ids, in the order sysbench draws them.
func (s *Session) oltp(rng *rand.Rand) error {
	cfg := &s.w.cfg
	size := int64(cfg.TableSize)
	if !cfg.SkipTrx {
		if err := s.run(kindBegin, 1, nil); err != nil {
			return err
		}
	}
	if cfg.Command != CommandOLTPWO {
		t := s.table(rng)
		n := max(1, cfg.InStatement)
		for range oltpPointSelects {
			if err := s.run(kindPoint, t, s.ids(rng, n)); err != nil {
				return err
			}
		}
		if !cfg.NoRangeSelects {
			for k := kindSimpleRange; k <= kindDistinctRange; k++ {
				t := s.table(rng)
				lo := rng.Int64N(size) + 1
				s.vals = append(s.vals[:0], intValue(lo), intValue(lo+int64(cfg.RangeSize)-1))
				if err := s.run(k, t, s.vals); err != nil {
					return err
				}
			}
		}
	}
	if cfg.Command != CommandOLTPRO {
		t := s.table(rng)
		if err := s.run(kindIndexUpdate, t, s.ids(rng, 1)); err != nil {
			return err
		}
		t = s.table(rng)
		randomString(rng, s.c120[:], cTemplate)
		s.vals = append(s.vals[:0], charValue(s.c120[:]), intValue(rng.Int64N(size)+1))
		if err := s.run(kindNonIndexUpdate, t, s.vals); err != nil {
			return err
		}
		t = s.table(rng)
		id, k := rng.Int64N(size)+1, rng.Int64N(size)+1
		randomString(rng, s.c120[:], cTemplate)
		randomString(rng, s.pad60[:], padTemplate)
		s.vals = append(s.vals[:0], intValue(id))
		if err := s.run(kindDelete, t, s.vals); err != nil {
			return err
		}
		s.vals = append(s.vals[:0], intValue(id), intValue(k), charValue(s.c120[:]), charValue(s.pad60[:]))
		if err := s.run(kindInsert, t, s.vals); err != nil {
			return err
		}
	}
	if !cfg.SkipTrx {
		return s.run(kindCommit, 1, nil)
	}
	return nil
}

// table draws a table number as oltp_common.lua's get_table_num does.
func (s *Session) table(rng *rand.Rand) int {
	if s.w.cfg.Tables == 1 {
		return 1
	}
	return rng.IntN(s.w.cfg.Tables) + 1
}

// ids fills the session's values with n ids.
func (s *Session) ids(rng *rand.Rand, n int) []bindValue {
	size := int64(s.w.cfg.TableSize)
	s.vals = s.vals[:0]
	for range n {
		s.vals = append(s.vals, intValue(rng.Int64N(size)+1))
	}
	return s.vals
}

// The templates of sysbench's c and pad values: each '#' a random digit.
const (
	cTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	padTemplate = "###########-###########-###########-###########-###########"
)

// randomString fills b (as long as tmpl) as sysbench.rand.string does:
// each '#' of tmpl a random decimal digit, the rest kept. One 64-bit draw
// gives 19 digits.
func randomString(rng *rand.Rand, b []byte, tmpl string) {
	var x uint64
	left := 0
	for i := range len(tmpl) {
		if tmpl[i] != '#' {
			b[i] = tmpl[i]
			continue
		}
		if left == 0 {
			x, left = rng.Uint64(), 19
		}
		b[i] = '0' + byte(x%10)
		x /= 10
		left--
	}
}

// run sends statement kind on table with vals (as many as it takes).
func (s *Session) run(kind stmtKind, table int, vals []bindValue) error {
	i := s.w.index[kind][table-1]
	s.queries++
	if s.stmts != nil && s.stmts[i] != nil {
		_, err := s.stmts[i].execValues(vals)
		return err
	}
	sh := &s.w.shapes[i]
	if len(sh.params) == 0 {
		_, err := s.c.Query(sh.text[0])
		return err
	}
	q := append(s.sql[:0], sh.text[0]...)
	for j, v := range vals {
		if v.str != nil {
			// sysbench inlines a CHAR bind in single quotes; its values
			// are digits and dashes, which need no escaping.
			q = append(q, '\'')
			q = append(q, v.str...)
			q = append(q, '\'')
		} else {
			q = strconv.AppendInt(q, v.i, 10)
		}
		q = append(q, sh.text[j+1]...)
	}
	s.sql = q
	_, err := s.c.QueryBytes(q)
	return err
}

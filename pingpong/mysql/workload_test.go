package mysql

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
	"github.com/hoplat/hoplat/responder/mock"
)

// sentCommands splits what a client wrote into its commands.
func sentCommands(t *testing.T, sent []byte) [][]byte {
	t.Helper()
	r := wire.NewPacketConn(wiretest.NewPipe(sent))
	var got [][]byte
	for {
		r.ResetSeq()
		p, err := r.ReadPacket()
		if err != nil {
			return got
		}
		got = append(got, append([]byte(nil), p...))
	}
}

// oltpStatements is the text of one event of sysbench 1.0's oltp
// scripts (oltp_common.lua's event() of oltp_read_only, oltp_read_write
// and oltp_write_only) as regular expressions, table numbers as T.
func oltpStatements(cfg WorkloadConfig) []string {
	var want []string
	if !cfg.SkipTrx {
		want = append(want, `BEGIN`)
	}
	if cfg.Command != CommandOLTPWO {
		point := `SELECT c FROM sbtestT WHERE id=(\d+)`
		if cfg.InStatement > 0 {
			point = `SELECT c FROM sbtestT WHERE id IN \((\d+)` + strings.Repeat(`, (\d+)`, cfg.InStatement-1) + `\)`
		}
		for range 10 {
			want = append(want, point)
		}
		if !cfg.NoRangeSelects {
			want = append(want,
				`SELECT c FROM sbtestT WHERE id BETWEEN (\d+) AND (\d+)`,
				`SELECT SUM\(k\) FROM sbtestT WHERE id BETWEEN (\d+) AND (\d+)`,
				`SELECT c FROM sbtestT WHERE id BETWEEN (\d+) AND (\d+) ORDER BY c`,
				`SELECT DISTINCT c FROM sbtestT WHERE id BETWEEN (\d+) AND (\d+) ORDER BY c`)
		}
	}
	if cfg.Command != CommandOLTPRO {
		c := `'\d{11}(?:-\d{11}){9}'`
		pad := `'\d{11}(?:-\d{11}){4}'`
		want = append(want,
			`UPDATE sbtestT SET k=k\+1 WHERE id=(\d+)`,
			`UPDATE sbtestT SET c=`+c+` WHERE id=(\d+)`,
			`DELETE FROM sbtestT WHERE id=(\d+)`,
			`INSERT INTO sbtestT \(id, k, c, pad\) VALUES \((\d+), (\d+), `+c+`, `+pad+`\)`)
	}
	if !cfg.SkipTrx {
		want = append(want, `COMMIT`)
	}
	return want
}

// TestOLTPStatements checks the text of oltp events against sysbench's
// scripts: the statements, their order, their values' ranges, and each
// statement group's table, which with --tables N varies between groups
// and not inside one.
func TestOLTPStatements(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{Tables: 4})
	for _, cfg := range []WorkloadConfig{
		{Command: CommandOLTPRO},
		{Command: CommandOLTPRW},
		{Command: CommandOLTPWO},
		{Command: CommandOLTPRW, Tables: 4},
		{Command: CommandOLTPRW, NoRangeSelects: true, SkipTrx: true},
		{Command: CommandOLTPRO, NoRangeSelects: true, InStatement: 7, Tables: 2},
	} {
		cfg.TableSize, cfg.RangeSize = 500, 10
		name := string(cfg.Command)
		if cfg.Tables > 1 || cfg.NoRangeSelects || cfg.SkipTrx || cfg.InStatement > 0 {
			name += "/" + strconv.Itoa(cfg.Tables) + strconv.FormatBool(cfg.NoRangeSelects) + strconv.FormatBool(cfg.SkipTrx) + strconv.Itoa(cfg.InStatement)
		}
		t.Run(name, func(t *testing.T) {
			rc := &recordingConn{Conn: mysqltest.DialRaw(t, "tcp", m.TCPAddr)}
			c, err := Connect(rc, ClientConfig{DB: "sbtest"}, false)
			if err != nil {
				t.Fatal(err)
			}
			w, s := mustPrepare(t, c, cfg)
			want := oltpStatements(w.Config())
			if w.QueriesPerEvent() != len(want) {
				t.Errorf("QueriesPerEvent = %d, sysbench sends %d", w.QueriesPerEvent(), len(want))
			}
			rng := rand.New(rand.NewPCG(9, 9))
			tables := map[int]bool{}
			for range 20 {
				rc.sent.Reset()
				if q, err := s.Event(rng); err != nil || q != len(want) {
					t.Fatalf("Event = %d, %v; want %d statements", q, err, len(want))
				}
				got := sentCommands(t, rc.sent.Bytes())
				if len(got) != len(want) {
					t.Fatalf("sent %d statements, want %d: %q", len(got), len(want), got)
				}
				prevGroup, prevTable := "", 0
				for i, re := range want {
					if got[i][0] != wire.ComQuery {
						t.Fatalf("command 0x%02x, want COM_QUERY", got[i][0])
					}
					sql := string(got[i][1:])
					if tm := regexp.MustCompile(`sbtest(\d+)`).FindStringSubmatch(sql); tm != nil {
						n, _ := strconv.Atoi(tm[1])
						tables[n] = true
						if n < 1 || n > w.Config().Tables {
							t.Fatalf("statement %q: table outside 1..%d", sql, w.Config().Tables)
						}
						// A group is one statement repeated (the point
						// selects) or DELETE with its INSERT: one table.
						group := re
						if strings.HasPrefix(re, "DELETE") || strings.HasPrefix(re, "INSERT") {
							group = "delete-insert"
						}
						if group == prevGroup && n != prevTable {
							t.Fatalf("statement %d %q on table %d, its group on %d", i, sql, n, prevTable)
						}
						prevGroup, prevTable = group, n
						re = strings.ReplaceAll(re, "sbtestT", "sbtest"+tm[1])
					}
					mm := regexp.MustCompile("^" + re + "$").FindStringSubmatch(sql)
					if mm == nil {
						t.Fatalf("statement %d = %q, want %s", i, sql, re)
					}
					var ids []int
					for _, v := range mm[1:] {
						n, _ := strconv.Atoi(v)
						ids = append(ids, n)
					}
					for _, id := range ids {
						if id < 1 || id > 500+9 {
							t.Errorf("statement %q: id %d outside 1..500 (a range's end to 509)", sql, id)
						}
					}
					if strings.Contains(re, "BETWEEN") && ids[1]-ids[0] != 9 {
						t.Errorf("statement %q: range of %d ids, want 10", sql, ids[1]-ids[0]+1)
					}
				}
			}
			if n := w.Config().Tables; n > 1 && len(tables) != n {
				t.Errorf("20 events used tables %v, want all of 1..%d", tables, n)
			}
		})
	}
}

// TestOLTPPrepared checks that prepared mode prepares each statement on
// every table once, as sysbench's thread_init does, and then sends only
// COM_STMT_EXECUTE, binding CHAR values as strings.
func TestOLTPPrepared(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{Tables: 3})
	rc := &recordingConn{Conn: mysqltest.DialRaw(t, "tcp", m.TCPAddr)}
	c, err := Connect(rc, ClientConfig{DB: "sbtest"}, false)
	if err != nil {
		t.Fatal(err)
	}
	rc.sent.Reset()
	w, s := mustPrepare(t, c, WorkloadConfig{Command: CommandOLTPRW, PS: true, Tables: 3})
	var prepared []string
	for _, p := range sentCommands(t, rc.sent.Bytes()) {
		if p[0] != wire.ComStmtPrepare {
			t.Fatalf("set-up sent command 0x%02x, want only COM_STMT_PREPARE", p[0])
		}
		prepared = append(prepared, string(p[1:]))
	}
	// BEGIN, COMMIT, then per table 1 point + 4 ranges + 4 writes.
	if len(prepared) != 2+3*9 {
		t.Fatalf("prepared %d statements, want %d: %q", len(prepared), 2+3*9, prepared)
	}
	for _, want := range []string{"BEGIN", "COMMIT", "SELECT c FROM sbtest3 WHERE id=?", "UPDATE sbtest2 SET c=? WHERE id=?",
		"INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", "DELETE FROM sbtest3 WHERE id=?", "UPDATE sbtest1 SET k=k+1 WHERE id=?",
		"SELECT DISTINCT c FROM sbtest2 WHERE id BETWEEN ? AND ? ORDER BY c"} {
		if !strings.Contains(strings.Join(prepared, "\n")+"\n", want+"\n") {
			t.Errorf("%q not prepared; prepared %q", want, prepared)
		}
	}
	rc.sent.Reset()
	if _, err := s.Event(rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	sent := sentCommands(t, rc.sent.Bytes())
	if len(sent) != w.QueriesPerEvent() {
		t.Fatalf("one event sent %d commands, want %d", len(sent), w.QueriesPerEvent())
	}
	for _, p := range sent {
		if p[0] != wire.ComStmtExecute {
			t.Fatalf("event sent command 0x%02x, want COM_STMT_EXECUTE", p[0])
		}
	}
	// The INSERT: four parameters typed LONGLONG, LONGLONG, STRING, STRING.
	ins := sent[len(sent)-2]
	types := ins[1+4+1+4+1+1:][:8]
	if !bytes.Equal(types, []byte{wire.TypeLongLong, 0, wire.TypeLongLong, 0, wire.TypeString, 0, wire.TypeString, 0}) {
		t.Fatalf("INSERT parameter types % x", types)
	}
	vals := ins[1+4+1+4+1+1+8:]
	if id := binary.LittleEndian.Uint64(vals); id < 1 || id > 10000 {
		t.Fatalf("INSERT id %d", id)
	}
	if vals[16] != 119 || vals[16+1+119] != 59 {
		t.Fatalf("INSERT c and pad lengths %d and %d, want 119 and 59", vals[16], vals[16+1+119])
	}
}

func TestWorkloadOLTPConfig(t *testing.T) {
	for _, cfg := range []WorkloadConfig{
		{Command: CommandOLTPRW, Tables: -1},
		{Command: CommandOLTPRO, InStatement: -1},
		{Command: CommandOLTPRO, InStatement: 70000},
		{Command: CommandOLTPRW, Tables: 2, Table: "t"},
		{Command: CommandPointSelect, Tables: 2},
	} {
		if _, err := NewWorkload(cfg); err == nil {
			t.Errorf("NewWorkload(%+v) accepted", cfg)
		}
	}
	for _, tc := range []struct {
		cfg  WorkloadConfig
		want int
	}{
		{WorkloadConfig{Command: CommandOLTPRO}, 16},
		{WorkloadConfig{Command: CommandOLTPRW}, 20},
		{WorkloadConfig{Command: CommandOLTPWO}, 6},
		{WorkloadConfig{Command: CommandOLTPWO, SkipTrx: true}, 4},
		{WorkloadConfig{Command: CommandOLTPRW, NoRangeSelects: true}, 16},
		{WorkloadConfig{Command: CommandOLTPRO, NoRangeSelects: true, SkipTrx: true, InStatement: 100}, 10},
	} {
		w := mustWorkload(t, tc.cfg)
		if got := w.QueriesPerEvent(); got != tc.want {
			t.Errorf("%+v: %d queries per event, want %d", tc.cfg, got, tc.want)
		}
	}
	w := mustWorkload(t, WorkloadConfig{Command: CommandOLTPRW})
	for _, code := range []uint16{1213, 1020, 1205, 1047} {
		if !w.ignored(code) {
			t.Errorf("default ignore list lacks %d", code)
		}
	}
	if w.ignored(1146) || w.ignored(1062) {
		t.Error("default ignore list retries 1146 or 1062")
	}
	if w := mustWorkload(t, WorkloadConfig{Command: CommandOLTPRW, IgnoreErrors: []uint16{}}); w.ignored(1213) {
		t.Error("an empty ignore list retries 1213")
	}
	if w := mustWorkload(t, WorkloadConfig{Command: CommandOLTPRW, IgnoreAll: true}); !w.ignored(1146) {
		t.Error("IgnoreAll does not retry 1146")
	}
}

func TestRandomString(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, len(cTemplate))
	seen := map[byte]bool{}
	for range 100 {
		randomString(rng, b, cTemplate)
		if !regexp.MustCompile(`^\d{11}(-\d{11}){9}$`).Match(b) {
			t.Fatalf("c value %q", b)
		}
		for _, ch := range b {
			seen[ch] = true
		}
	}
	if len(seen) != 11 {
		t.Fatalf("digits seen %d kinds, want 10 and '-'", len(seen))
	}
}

package mysql

import (
	"context"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
	"github.com/hoplat/hoplat/sockets"
)

// mixCounters are the server's counts of each statement kind, and of
// prepared executions, that a workload's mix is read from.
var mixCounters = []string{"Com_select", "Com_update", "Com_delete", "Com_insert", "Com_begin", "Com_commit", "Com_stmt_execute"}

// statementMix runs load against db and returns each counter's growth
// per transaction the load reports.
func statementMix(t *testing.T, db *mariadbtest.Server, load func() int64) map[string]float64 {
	t.Helper()
	before, err := db.GlobalStatus(mixCounters...)
	if err != nil {
		t.Fatal(err)
	}
	txns := load()
	after, err := db.GlobalStatus(mixCounters...)
	if err != nil {
		t.Fatal(err)
	}
	if txns == 0 {
		t.Fatal("no transactions")
	}
	mix := map[string]float64{}
	for _, c := range mixCounters {
		mix[c] = float64(after[c]-before[c]) / float64(txns)
	}
	return mix
}

// TestSameStatementMixAsSysbench runs sysbench's oltp_read_write and
// oltp_write_only and pingpong's oltp-rw and oltp-wo in turn against one
// MariaDB, at 1 and 16 threads, prepared and text, and compares what the
// server counted per transaction: the statement mix sysbench sends is the
// one pingpong sends.
func TestSameStatementMixAsSysbench(t *testing.T) {
	sb := peer.Require(t, "sysbench")
	db := mariadbtest.Shared(t)
	target, err := sockets.Parse("tcp:" + db.Addr)
	if err != nil {
		t.Fatal(err)
	}
	const secs = 1
	for _, wl := range []struct {
		cmd    Command
		script string
		want   map[string]float64 // per transaction, as oltp_common.lua sends it
	}{
		{CommandOLTPRW, "oltp_read_write", map[string]float64{"Com_select": 14, "Com_update": 2, "Com_delete": 1, "Com_insert": 1, "Com_begin": 1, "Com_commit": 1}},
		{CommandOLTPWO, "oltp_write_only", map[string]float64{"Com_select": 0, "Com_update": 2, "Com_delete": 1, "Com_insert": 1, "Com_begin": 1, "Com_commit": 1}},
	} {
		for _, ps := range []bool{true, false} {
			for _, threads := range []int{1, 16} {
				mode := "ps"
				if !ps {
					mode = "text"
				}
				t.Run(wl.script+"/"+mode+"/"+strconv.Itoa(threads), func(t *testing.T) {
					psMode := "auto"
					if !ps {
						psMode = "disable"
					}
					var sbOut string
					var sbTxns, sbIgnored int64
					sbMix := statementMix(t, db, func() int64 {
						args := append(db.SysbenchArgs(false), wl.script, "--tables=1", "--table-size="+strconv.Itoa(db.TableSize),
							"--threads="+strconv.Itoa(threads), "--time="+strconv.Itoa(secs), "--db-ps-mode="+psMode,
							"--rand-type=uniform", "--mysql-ignore-errors=1213,1020,1205,1047", "run")
						outb, err := exec.Command(sb, args...).CombinedOutput()
						out := string(outb)
						if err != nil {
							t.Fatalf("sysbench: %v\n%s", err, out)
						}
						sbOut = out
						m := sysbenchTransactions.FindStringSubmatch(out)
						if m == nil {
							t.Fatalf("sysbench output lacks transactions:\n%s", out)
						}
						sbTxns, _ = strconv.ParseInt(m[1], 10, 64)
						if m := sysbenchIgnored.FindStringSubmatch(out); m != nil {
							sbIgnored, _ = strconv.ParseInt(m[1], 10, 64)
						}
						return sbTxns
					})
					var ppErrors, ppTxns, ppQueries, ppIgnored int64
					ppMix := statementMix(t, db, func() int64 {
						rep, err := pingpong.Run(context.Background(), pingpong.Config{
							Target: target, Threads: []int{threads}, Time: secs * time.Second,
							Protocol: &Protocol{Client: ClientConfig{User: db.User, Password: db.Password, DB: db.DB},
								Workload: mustWorkload(t, WorkloadConfig{Command: wl.cmd, PS: ps, TableSize: db.TableSize})},
						})
						if err != nil {
							t.Fatal(err)
						}
						r := rep.Results()[0]
						ppErrors, ppTxns, ppQueries, ppIgnored = r.Errors-r.Ignored, r.Transactions, r.Queries, r.Ignored
						return r.Transactions
					})
					if ppErrors != 0 {
						t.Fatalf("pingpong: %d errors besides the ignored ones", ppErrors)
					}
					// The server's counts per completed transaction are
					// the mix exactly, but for what the timed run adds
					// beside its completed transactions, as many as this
					// run had, whatever the machine's speed: each retried
					// event (an ignored deadlock or lock wait, as either
					// tool counts them) repeats at most one event's
					// statements, and each thread adds at most one event
					// cut short at the end and its session's set-up. The
					// tolerance is that, per transaction, beside 3% and
					// 0.01 of rounding, which no speed moves: a statement
					// kind missing or sent twice moves its count by a
					// whole one per transaction.
					slack := func(ignored, txns int64) float64 { return float64(2*int64(threads)+ignored) / float64(txns) }
					ppSlack, sbSlack := slack(ppIgnored, ppTxns), slack(sbIgnored, sbTxns)
					for _, c := range mixCounters {
						want, nominal := wl.want[c], true
						if c == "Com_stmt_execute" {
							want, nominal = 0, false
							if ps {
								want = sbMix["Com_stmt_execute"]
							}
						}
						tol := (0.03+ppSlack)*math.Max(1, want) + 0.01
						if both := tol + sbSlack*math.Max(1, want); math.Abs(ppMix[c]-sbMix[c]) > both {
							t.Errorf("%s per transaction: pingpong %.3f, sysbench %.3f in the same run (tolerance %.3f)", c, ppMix[c], sbMix[c], both)
						}
						if nominal && math.Abs(ppMix[c]-want) > tol {
							t.Errorf("%s per transaction: pingpong %.3f, oltp_common.lua sends %v (tolerance %.3f)", c, ppMix[c], want, tol)
						}
					}
					if ps && sbMix["Com_stmt_execute"] < 5 {
						t.Errorf("sysbench --db-ps-mode=auto executed %.2f prepared statements per transaction", sbMix["Com_stmt_execute"])
					}
					if ppQueries < ppTxns*int64(mustWorkload(t, WorkloadConfig{Command: wl.cmd}).QueriesPerEvent()) {
						t.Errorf("pingpong: %d queries for %d transactions", ppQueries, ppTxns)
					}
					t.Logf("per transaction: sysbench %v (%d transactions, %d ignored errors); pingpong %v (%d transactions, %d ignored)",
						sbMix, sbTxns, sbIgnored, ppMix, ppTxns, ppIgnored)
					if testing.Verbose() {
						t.Log(sbOut)
					}
				})
			}
		}
	}
}

// TestIgnoredErrorRetried holds a row lock on another connection until
// the workload's UPDATE has timed out on it (ERROR 1205) and waited on
// it again: the event is retried on its connection, counted as ignored,
// and then completes.
func TestIgnoredErrorRetried(t *testing.T) {
	db := mariadbtest.Shared(t)
	holder := mysqltest.MustDial(t, Connect, "tcp", db.Addr, ClientConfig{User: db.User, Password: db.Password, DB: db.DB})
	defer holder.Quit()
	c := mysqltest.MustDial(t, Connect, "tcp", db.Addr, ClientConfig{User: db.User, Password: db.Password, DB: db.DB})
	defer c.Quit()
	if _, err := c.Query("SET SESSION innodb_lock_wait_timeout=1"); err != nil {
		t.Fatal(err)
	}
	waits := func() int64 {
		st, err := db.GlobalStatus("Innodb_row_lock_waits")
		if err != nil {
			t.Error(err)
		}
		return st["Innodb_row_lock_waits"]
	}
	base := waits()
	if _, err := holder.Query("BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Query("SELECT c FROM sbtest1 WHERE id=77 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	_, s := mustPrepare(t, c, WorkloadConfig{Command: CommandQuery, Query: "UPDATE sbtest1 SET k=k+1 WHERE id=77"})
	var wg sync.WaitGroup
	var q int
	var evErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		q, evErr = s.Event(nil)
	}()
	// The second wait begins only after the first timed out and the
	// event was retried.
	deadline := time.Now().Add(30 * time.Second)
	for waits() < base+2 {
		if time.Now().After(deadline) {
			t.Fatal("the update never waited twice on the lock")
		}
		time.Sleep(20 * time.Millisecond) // polling the server's counter, not waiting for readiness
	}
	if _, err := holder.Query("COMMIT"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	n, last := s.Ignored()
	if evErr != nil || n < 1 || q != int(n)+1 {
		t.Fatalf("Event = %d statements, %v; ignored %d (%v): want the update retried after 1205 and done", q, evErr, n, last)
	}
	if se := mysqltest.AsServerError(last); se == nil || se.Code != wire.ErLockWaitTimeout {
		t.Fatalf("last ignored error %v, want 1205", last)
	}
	if aff, _ := c.AffectedRows(); aff != 1 {
		t.Fatalf("the retried update affected %d rows, want 1", aff)
	}
}

var (
	sysbenchTransactions = regexp.MustCompile(`transactions:\s+(\d+)`)
	sysbenchIgnored      = regexp.MustCompile(`ignored errors:\s+(\d+)`)
)

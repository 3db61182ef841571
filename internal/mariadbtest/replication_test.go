package mariadbtest

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A pair replicates: a row written on the primary shows on the replica,
// and the replica's copy of sysbench's table came through the binary log,
// not from a sysbench of its own. Two independent servers fail every one
// of these checks. The pair survives the primary's crash.
func TestPairReplicatesPrimaryToReplica(t *testing.T) {
	p := StartPair(t)
	pr, re := p.Primary, p.Replica
	if pr.PID == re.PID || pr.Addr == re.Addr || pr.Socket == re.Socket {
		t.Fatalf("primary and replica share a process or an address: %+v / %+v", pr, re)
	}

	st, err := re.ReplicaStatus()
	if err != nil {
		t.Fatal(err)
	}
	if st["Slave_IO_Running"] != "Yes" || st["Slave_SQL_Running"] != "Yes" {
		t.Fatalf("replica threads IO %q SQL %q (%q, %q)", st["Slave_IO_Running"], st["Slave_SQL_Running"], st["Last_IO_Error"], st["Last_SQL_Error"])
	}
	if want := pr.Addr[strings.LastIndexByte(pr.Addr, ':')+1:]; st["Master_Port"] != want || st["Master_Host"] != "127.0.0.1" {
		t.Fatalf("replica follows %s:%s, want the primary %s", st["Master_Host"], st["Master_Port"], pr.Addr)
	}
	ids := map[string]bool{}
	for _, s := range []*Server{pr, re} {
		id, err := s.RootSQL("SELECT @@server_id")
		if err != nil {
			t.Fatal(err)
		}
		ids[strings.TrimSpace(id)] = true
	}
	if len(ids) != 2 {
		t.Fatalf("server_id not distinct: %v", ids)
	}
	if ro, err := re.RootSQL("SELECT @@read_only"); err != nil || strings.TrimSpace(ro) != "1" {
		t.Fatalf("replica read_only = %q, %v; want 1", ro, err)
	}

	// The table: the replica holds every row, yet no client wrote one
	// there; and no client can, the account being bound by read_only.
	rows, err := re.SQL("SELECT COUNT(*) FROM sbtest1")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(rows); got != strconv.Itoa(re.TableSize) {
		t.Fatalf("replica's sbtest1 has %s rows, want %d", got, re.TableSize)
	}
	written, err := re.RowsWritten()
	if err != nil {
		t.Fatal(err)
	}
	if written != 0 {
		t.Fatalf("clients wrote %d rows on the replica: its table was not replicated", written)
	}
	if _, err := re.SQL("INSERT INTO sbtest1 (k, c, pad) VALUES (1, 'x', 'y')"); err == nil || !strings.Contains(err.Error(), "1290") {
		t.Fatalf("a client's INSERT on the replica: %v; want error 1290 (read-only)", err)
	}

	// A row written now on the primary, with a value only this run has.
	mark := fmt.Sprintf("mark-%d-%d", syscall.Getpid(), time.Now().UnixNano())
	if _, err := pr.SQL("CREATE TABLE repl_mark (v VARCHAR(64) PRIMARY KEY); INSERT INTO repl_mark VALUES ('" + mark + "')"); err != nil {
		t.Fatal(err)
	}
	if err := p.Sync(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	got, err := re.SQL("SELECT v FROM repl_mark")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(got) != mark {
		t.Fatalf("replica's repl_mark = %q, want %q", got, mark)
	}
	pos := map[string]string{}
	for name, q := range map[string]string{"primary": "SELECT @@gtid_binlog_pos", "replica": "SELECT @@gtid_slave_pos"} {
		s := pr
		if name == "replica" {
			s = re
		}
		v, err := s.RootSQL(q)
		if err != nil {
			t.Fatal(err)
		}
		pos[name] = strings.TrimSpace(v)
	}
	if pos["primary"] == "" || pos["primary"] != pos["replica"] {
		t.Fatalf("GTID positions: primary logged %q, replica applied %q", pos["primary"], pos["replica"])
	}

	// A primary killed (as a crash would) and restarted serves on its port
	// again, and its replica follows it again.
	if err := pr.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := pr.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := pr.SQL("INSERT INTO repl_mark VALUES ('after-restart')"); err != nil {
		t.Fatal(err)
	}
	if err := p.Sync(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got, err := re.SQL("SELECT COUNT(*) FROM repl_mark"); err != nil || strings.TrimSpace(got) != "2" {
		t.Fatalf("replica's repl_mark after the primary's restart: %q rows, %v; want 2", got, err)
	}
}

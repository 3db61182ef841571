package mariadbtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Pair is a MariaDB primary with one replica on asynchronous replication.
// The primary writes a binary log in row format; the replica, read_only,
// follows it by GTID from the log's first event. Each runs from a
// temporary datadir of its own. The account, the schema and sysbench's
// table are made on the primary only and reach the replica through the
// binary log, so the two share their data the way a replicated pair does:
// a write on the primary shows on the replica, never the other way round.
type Pair struct {
	Primary, Replica *Server
}

// The account the replica reads the primary's binary log as.
const replUser, replPassword = "repl", "repl-pw-3Vn"

// syncTimeout bounds Sync inside LaunchPair: applying sysbench's table
// is row events on a machine shared with compilers.
const syncTimeout = 60 * time.Second

// options are mariadbd's options for a server in role r whose files are
// in dir.
func (r role) options(dir string) []string {
	switch r {
	case primary:
		// Row events: the replica applies rows without running a
		// statement, so its Com_insert, Com_update and Com_delete count
		// only what clients sent it.
		return []string{"--server-id=1", "--log-bin=" + filepath.Join(dir, "binlog"), "--binlog-format=ROW"}
	case replica:
		// userstat: INFORMATION_SCHEMA.USER_STATISTICS counts the rows
		// each account wrote, apart from the replication threads',
		// which Com_insert and its kin count with the clients'.
		return []string{"--server-id=2", "--skip-log-bin", "--relay-log=" + filepath.Join(dir, "relay"),
			"--read-only=ON", "--userstat=ON"}
	}
	return []string{"--skip-log-bin"}
}

// LaunchPair starts a primary and its replica, loads sysbench's table on
// the primary and returns once the replica has applied it. The caller must
// Stop the pair.
func LaunchPair(opts Options) (*Pair, error) {
	p := &Pair{}
	var err error
	if p.Primary, err = newServer(opts, primary); err != nil {
		return nil, err
	}
	if p.Replica, err = newServer(opts, replica); err != nil {
		p.Primary.Stop()
		return nil, err
	}
	// The two datadirs are made and served at once: mariadb-install-db
	// is most of a start's time.
	errs := make(chan error, 2)
	for _, s := range []*Server{p.Primary, p.Replica} {
		go func() { errs <- s.start() }()
	}
	err = errors.Join(<-errs, <-errs)
	if err == nil {
		err = p.follow()
	}
	if err == nil {
		err = p.Primary.setUp()
	}
	if err == nil {
		err = p.Sync(syncTimeout)
	}
	if err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

// follow makes the primary's replication account and points the replica
// at the primary. The replica's GTID position is empty, so it asks for the
// binary log from its first event: the account's own CREATE USER, then
// everything setUp does.
func (p *Pair) follow() error {
	if _, err := p.Primary.RootSQL(fmt.Sprintf(`CREATE USER '%[1]s'@'127.0.0.1' IDENTIFIED BY '%[2]s';
GRANT REPLICATION SLAVE ON *.* TO '%[1]s'@'127.0.0.1';`, replUser, replPassword)); err != nil {
		return err
	}
	// MASTER_CONNECT_RETRY=1: a primary that restarts (a test kills it)
	// is followed again within a second rather than the default minute.
	_, err := p.Replica.RootSQL(fmt.Sprintf(`CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d,
MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1;
START SLAVE;`, p.Primary.port, replUser, replPassword))
	return err
}

// Sync waits until the replica has applied every transaction the primary
// had logged when Sync began. It fails as soon as either replication
// thread reports an error, and after timeout, naming the replica's state.
func (p *Pair) Sync(timeout time.Duration) error {
	pos, err := p.Primary.RootSQL("SELECT @@gtid_binlog_pos")
	if err != nil {
		return err
	}
	pos = strings.TrimSpace(pos)
	deadline := time.Now().Add(timeout)
	for {
		// MASTER_GTID_WAIT blocks in the replica until its SQL thread has
		// applied pos (0) or a second has passed (-1): the wait is the
		// server's event, and the second is only how often the threads'
		// errors are looked at.
		out, err := p.Replica.RootSQL(fmt.Sprintf("SELECT MASTER_GTID_WAIT('%s', 1)", pos))
		if err != nil {
			return err
		}
		if strings.TrimSpace(out) == "0" {
			return nil
		}
		st, err := p.Replica.ReplicaStatus()
		if err != nil {
			return err
		}
		if st["Last_IO_Errno"] != "0" || st["Last_SQL_Errno"] != "0" {
			return fmt.Errorf("mariadbtest: replica of %s stopped: IO thread %q, SQL thread %q",
				p.Primary.Addr, st["Last_IO_Error"], st["Last_SQL_Error"])
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mariadbtest: replica has not applied the primary's GTID %s after %v: it is at %q, IO thread %s (%s), SQL thread %s",
				pos, timeout, st["Gtid_Slave_Pos"], st["Slave_IO_Running"], st["Slave_IO_State"], st["Slave_SQL_Running"])
		}
	}
}

// Stop stops the replica, then the primary, and removes their files.
func (p *Pair) Stop() error {
	return errors.Join(p.Replica.Stop(), p.Primary.Stop())
}

// StartPair launches a pair for t alone and stops it at cleanup. It skips
// t (fails it under HOPLAT_REQUIRE_INTEGRATION) when a program is missing.
func StartPair(t testing.TB) *Pair {
	t.Helper()
	return startFor(t, LaunchPair)
}

var sharedPair = one[*Pair]{launch: LaunchPair}

// SharedPair returns the test process's one pair, starting it on first
// use. A package that calls it stops the pair from TestMain with
// StopShared.
func SharedPair(t testing.TB) *Pair {
	t.Helper()
	return sharedPair.get(t)
}

// RootSQL runs statements with the mariadb client over the server's
// socket as root and returns what it printed, tab-separated, without
// column names.
func (s *Server) RootSQL(statements string) (string, error) {
	cmd := exec.Command(s.paths["mariadb"], "--no-defaults", "--batch", "--skip-column-names",
		"--socket="+s.Socket, "--user=root", "-e", statements)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("mariadbtest: mariadb -uroot -e %q on %s: %w: %s", statements, s.Addr, err, out)
	}
	return string(out), nil
}

// ReplicaStatus reads SHOW SLAVE STATUS by field name (Slave_IO_Running,
// Gtid_Slave_Pos, Last_SQL_Error, …); a server that replicates from
// nothing has no fields.
func (s *Server) ReplicaStatus() (map[string]string, error) {
	cmd := exec.Command(s.paths["mariadb"], "--no-defaults", "--vertical",
		"--socket="+s.Socket, "--user=root", "-e", "SHOW SLAVE STATUS")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("mariadbtest: SHOW SLAVE STATUS on %s: %w: %s", s.Addr, err, out)
	}
	st := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(name, "*") {
			continue
		}
		st[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	return st, nil
}

// Kill ends mariadbd with SIGKILL, as a crash would, and waits for it. The
// files stay: Restart serves them again.
func (s *Server) Kill() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return errors.New("mariadbtest: Kill of a server that is not running")
	}
	defer func() { s.cmd = nil }()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("mariadbtest: kill mariadbd %d: %w", s.PID, err)
	}
	<-s.done
	return nil
}

// Restart starts mariadbd again on its files, its port and its socket,
// and returns once it is ready (after InnoDB's crash recovery, following
// Kill). Another process may have taken the port meanwhile: the error then
// says so.
func (s *Server) Restart() error {
	if s.cmd != nil {
		return errors.New("mariadbtest: Restart of a running server")
	}
	os.Remove(s.Socket) // a killed server leaves it behind
	return s.launch(s.port)
}

// RowsWritten is the number of rows the account (User) has inserted,
// updated and deleted on a replica since it started, from
// INFORMATION_SCHEMA.USER_STATISTICS: the writes clients made, apart from
// those the replication threads applied. A server that is not a Pair's
// replica keeps no such statistics and returns an error.
func (s *Server) RowsWritten() (int64, error) {
	if s.role != replica {
		return 0, errors.New("mariadbtest: RowsWritten counts on a replica only (userstat)")
	}
	out, err := s.RootSQL(fmt.Sprintf("SELECT COALESCE(SUM(ROWS_INSERTED + ROWS_UPDATED + ROWS_DELETED), 0) "+
		"FROM information_schema.USER_STATISTICS WHERE USER = '%s'", s.User))
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("mariadbtest: USER_STATISTICS rows written = %q: %w", out, err)
	}
	return n, nil
}

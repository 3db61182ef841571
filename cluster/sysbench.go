package cluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The sysbench tests of the published Galera runs (docs/galera.md).
const (
	ReadOnly  = "oltp_read_only"
	WriteOnly = "oltp_write_only"
	ReadWrite = "oltp_read_write"
)

// Workloads lists them in the table's order.
var Workloads = []string{ReadOnly, WriteOnly, ReadWrite}

// DefaultIgnoreErrors are the errors a Galera run expects and sysbench
// counts and retries instead of stopping (its --mysql-ignore-errors): a
// deadlock (1213), which is how a write set that lost certification to
// another node's comes back; a lock wait timeout (1205); 1047 "WSREP has
// not yet prepared node for application use" from a node leaving or
// joining; 1020 "Record has changed since last read".
const DefaultIgnoreErrors = "1213,1205,1047,1020"

// Sysbench is one sysbench run against a MySQL server.
type Sysbench struct {
	Test      string // oltp_read_only, …
	Host      string
	Port      int
	User      string
	Password  string
	DB        string
	Tables    int
	TableSize int
	Threads   int
	Time      time.Duration
	// IgnoreErrors is --mysql-ignore-errors; "" for DefaultIgnoreErrors.
	IgnoreErrors string
	// ReportInterval is --report-interval; 0 for one second.
	ReportInterval time.Duration
}

// Args is sysbench's command line, after the program's name, for cmd
// (prepare, run). It sends text statements (--db-ps-mode=disable) and
// leaves the four range selects out (--range_selects=off), as §4's runs
// did.
func (s Sysbench) Args(cmd string) []string {
	ignore := s.IgnoreErrors
	if ignore == "" {
		ignore = DefaultIgnoreErrors
	}
	interval := s.ReportInterval
	if interval == 0 {
		interval = time.Second
	}
	secs := int((s.Time + time.Second - 1) / time.Second)
	return []string{s.Test, "--db-driver=mysql",
		"--mysql-host=" + s.Host, "--mysql-port=" + strconv.Itoa(s.Port),
		"--mysql-user=" + s.User, "--mysql-password=" + s.Password, "--mysql-db=" + s.DB,
		"--tables=" + strconv.Itoa(s.Tables), "--table-size=" + strconv.Itoa(s.TableSize),
		"--range_selects=off", "--db-ps-mode=disable", "--mysql-ignore-errors=" + ignore,
		"--threads=" + strconv.Itoa(max(s.Threads, 1)), "--time=" + strconv.Itoa(secs),
		"--report-interval=" + strconv.Itoa(max(int(interval/time.Second), 1)),
		cmd}
}

// Result is what sysbench 1.0 reports at the end of a run.
type Result struct {
	Read, Write, Other int64   // queries performed
	Transactions       int64   // transactions
	TPS                float64 // transactions per second
	Queries            int64
	QPS                float64
	IgnoredErrors      int64
	Reconnects         int64
	TotalTime          time.Duration
	Events             int64
	// LatencyMS is the per-transaction latency, milliseconds.
	LatencyMS struct{ Min, Avg, Max, P95 float64 }
	// Intervals are the per-interval progress lines.
	Intervals []Interval
}

// Interval is one --report-interval line:
//
//	[ 1s ] thds: 150 tps: 320.13 qps: 6438.61 (r/w/o: 4508.80/1287.55/642.26) lat (ms,95%): 733.00 err/s: 0.00 reconn/s: 0.00
type Interval struct {
	At        time.Duration
	Threads   int
	TPS, QPS  float64
	P95MS     float64
	ErrPerSec float64
}

// ErrNoReport is ParseSysbench's error for output without a final report:
// sysbench stopped early (FATAL: …, a refused connection) or was stopped.
var ErrNoReport = errors.New("no sysbench report")

// ParseSysbench reads sysbench's output. Lines it does not know are
// skipped; output with no "transactions:" line is ErrNoReport, with the
// last lines sysbench wrote.
func ParseSysbench(out []byte) (Result, error) {
	var r Result
	seen := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			if iv, ok := parseInterval(line); ok {
				r.Intervals = append(r.Intervals, iv)
			}
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) == 0 {
			continue
		}
		count := func() int64 { n, _ := strconv.ParseInt(fields[0], 10, 64); return n }
		rate := func() float64 {
			if len(fields) < 2 {
				return 0
			}
			f, _ := strconv.ParseFloat(strings.TrimPrefix(fields[1], "("), 64)
			return f
		}
		num := func() float64 { f, _ := strconv.ParseFloat(fields[0], 64); return f }
		switch key {
		case "read":
			r.Read = count()
		case "write":
			r.Write = count()
		case "other":
			r.Other = count()
		case "transactions":
			r.Transactions, r.TPS, seen = count(), rate(), true
		case "queries":
			r.Queries, r.QPS = count(), rate()
		case "ignored errors":
			r.IgnoredErrors = count()
		case "reconnects":
			r.Reconnects = count()
		case "total time":
			if f, err := strconv.ParseFloat(strings.TrimSuffix(fields[0], "s"), 64); err == nil && f >= 0 && f < 1e9 {
				r.TotalTime = time.Duration(f * float64(time.Second))
			}
		case "total number of events":
			r.Events = count()
		case "min":
			r.LatencyMS.Min = num()
		case "avg":
			r.LatencyMS.Avg = num()
		case "max":
			r.LatencyMS.Max = num()
		case "95th percentile":
			r.LatencyMS.P95 = num()
		}
	}
	if !seen {
		return r, fmt.Errorf("%w: %s", ErrNoReport, tail(string(out), 3))
	}
	return r, nil
}

// parseInterval reads one progress line; ok is false for anything else
// that starts with "[".
func parseInterval(line string) (Interval, bool) {
	rest, ok := strings.CutPrefix(line, "[")
	if !ok {
		return Interval{}, false
	}
	at, rest, ok := strings.Cut(rest, "]")
	if !ok {
		return Interval{}, false
	}
	secs, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(at), "s"), 64)
	if err != nil || secs < 0 || secs > 1e9 {
		return Interval{}, false
	}
	iv := Interval{At: time.Duration(secs * float64(time.Second))}
	f := strings.Fields(rest)
	found := false
	for i := 0; i+1 < len(f); i++ {
		v := f[i+1]
		switch f[i] {
		case "thds:":
			iv.Threads, _ = strconv.Atoi(v)
			found = true
		case "tps:":
			iv.TPS, _ = strconv.ParseFloat(v, 64)
		case "qps:":
			iv.QPS, _ = strconv.ParseFloat(v, 64)
		case "(ms,95%):":
			iv.P95MS, _ = strconv.ParseFloat(v, 64)
		case "err/s:":
			iv.ErrPerSec, _ = strconv.ParseFloat(v, 64)
		}
	}
	return iv, found
}

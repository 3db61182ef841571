package cluster

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// The fixtures are sysbench 1.0.20's own output against MariaDB 10.11,
// with the flags Sysbench.Args gives.
func TestParseSysbench(t *testing.T) {
	for _, tc := range []struct {
		file                 string
		tx, ignored, queries int64
		tps, p95             float64
		intervals            int
		lastTPS              float64
		threads              int
	}{
		{"oltp_read_write.txt", 411, 0, 6576, 202.37, 57.87, 2, 245.45, 4},
		{"oltp_write_only.txt", 984, 139, 6230, 485.05, 87.56, 2, 676.79, 16},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseSysbench(raw)
			if err != nil {
				t.Fatal(err)
			}
			if r.Transactions != tc.tx || r.TPS != tc.tps || r.IgnoredErrors != tc.ignored || r.Queries != tc.queries ||
				r.LatencyMS.P95 != tc.p95 || r.Read+r.Write+r.Other != r.Queries {
				t.Errorf("got %+v", r)
			}
			if len(r.Intervals) != tc.intervals {
				t.Fatalf("%d intervals, want %d: %+v", len(r.Intervals), tc.intervals, r.Intervals)
			}
			last := r.Intervals[len(r.Intervals)-1]
			if last.TPS != tc.lastTPS || last.Threads != tc.threads || last.At != time.Duration(tc.intervals)*time.Second {
				t.Errorf("last interval %+v", last)
			}
			if r.TotalTime < 2*time.Second || r.TotalTime > 3*time.Second {
				t.Errorf("total time %v", r.TotalTime)
			}
		})
	}
}

func TestParseSysbenchNoReport(t *testing.T) {
	out := "sysbench 1.0.20\nFATAL: unable to connect to MySQL server on host '10.77.0.2', port 3306, aborting...\nFATAL: error 2002: Can't connect\n"
	_, err := ParseSysbench([]byte(out))
	if !errors.Is(err, ErrNoReport) || !strings.Contains(err.Error(), "error 2002") {
		t.Fatalf("got %v, want ErrNoReport with sysbench's last lines", err)
	}
}

func TestSysbenchArgs(t *testing.T) {
	s := Sysbench{Test: ReadWrite, Host: "10.77.0.2", Port: 3306, User: "u", Password: "p", DB: "d",
		Tables: 10, TableSize: 1000, Threads: 450, Time: 2500 * time.Millisecond}
	got := s.Args("run")
	for _, want := range []string{"oltp_read_write", "--tables=10", "--range_selects=off", "--db-ps-mode=disable",
		"--report-interval=1", "--mysql-ignore-errors=1213,1205,1047,1020", "--threads=450", "--time=3", "run"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q missing from %q", want, got)
		}
	}
}

func FuzzParseSysbench(f *testing.F) {
	for _, name := range []string{"oltp_read_write.txt", "oltp_write_only.txt"} {
		raw, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte("[ 1s ] thds: tps:\ntransactions:\n[ -1e400s ] thds: x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseSysbench(b)
		if err == nil && r.TotalTime < 0 {
			t.Fatalf("negative total time %v", r.TotalTime)
		}
		for _, iv := range r.Intervals {
			if iv.At < 0 {
				t.Fatalf("negative interval %v", iv.At)
			}
		}
	})
}

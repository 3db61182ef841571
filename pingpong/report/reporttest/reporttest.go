package reporttest

import (
	"math"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/stats"
)

// lcg is Knuth's MMIX linear congruential generator: fixed, tiny, and not
// subject to math/rand changes between Go releases.
type lcg uint64

func (l *lcg) next() uint64 {
	*l = *l*6364136223846793005 + 1442695040888963407
	return uint64(*l >> 33)
}

// Latency fills a histogram with n round trips around base ns, with a
// 1% tail ten times slower, as a loopback ping-pong looks; seed picks the
// values.
func Latency(seed uint64, n int64, base int64) *stats.Histogram {
	h := stats.NewHistogram()
	l := lcg(seed)
	for range n {
		v := base + int64(l.next()%uint64(base/2))
		if l.next()%100 == 0 {
			v *= 10
		}
		h.Record(v)
	}
	return h
}

// Config is the run's configuration as a report prints it.
type Config struct {
	Target  string `json:"target"`
	Proto   string `json:"proto"`
	Threads []int  `json:"threads"`
	Time    string `json:"time"`
	Rate    int    `json:"rate"`
}

// Env is the machine the synthetic run names.
var Env = affinity.Env{
	Hostname: "bench1", OS: "linux", Arch: "amd64", Kernel: "6.8.0-45-generic",
	CPUModel: "Intel(R) Xeon(R) CPU @ 2.20GHz", Cores: 2, GOMAXPROCS: 2,
	GoVersion: "go1.26.0", ClockSource: "tsc",
	Pinning: map[string]string{"pingpong": "0", "pongd": "1"},
}

// Report is a pingpong run with two steps: one closed-loop echo thread over the
// FieldNotesSeries (1 s runs, none discarded, so run 0 is an outlier), and four open-loop mysql
// threads with 16 statements per transaction, connect latency, errors and
// reconnects.
func Report() report.Report {
	one := report.Step{Threads: 1, Discard: 0}
	for i, tps := range FieldNotesSeries {
		events := int64(math.Round(tps))
		one.Runs = append(one.Runs, report.Run{
			Index:   i,
			Elapsed: time.Second,
			Latency: Latency(uint64(i+1), events, 100_000),
			Events:  []int64{events},
		})
	}
	four := report.Step{Threads: 4, Discard: 1}
	for i := range 4 {
		events := []int64{2000 + int64(i), 2010, 1990, 2005}
		var total int64
		for _, e := range events {
			total += e
		}
		connect := Latency(uint64(100+i), 4, 300_000)
		if i == 2 {
			connect = nil
		}
		run := report.Run{
			Index:      i,
			Elapsed:    5 * time.Second,
			Latency:    Latency(uint64(10+i), total, 900_000),
			Corrected:  Latency(uint64(20+i), total, 1_100_000),
			Connect:    connect,
			Events:     events,
			Queries:    16 * total,
			Errors:     int64(i),
			Reconnects: int64(i % 2),
		}
		if i > 0 {
			run.ErrorSamples = []string{"mysql: 1213 Deadlock found", "mysql: 1205 Lock wait timeout"}
		}
		four.Runs = append(four.Runs, run)
	}
	return report.Report{
		Config: Config{Target: "tcp:127.0.0.1:3306", Proto: "mysql", Threads: []int{1, 4}, Time: "10s", Rate: 2000},
		Env:    Env,
		Steps:  []report.Step{one, four},
	}
}

// FieldNotesSeries is a queries/s series of 12 runs (FreeBSD UNIX socket
// locking, 2006): run 0 is half the steady rate, run 1 overshoots.
var FieldNotesSeries = []float64{
	4253.60, 8685.55, 8324.28, 8680.88, 8321.53, 8391.27,
	8557.10, 8034.79, 7532.90, 8196.65, 7931.77, 7981.55,
}

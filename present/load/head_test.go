package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/stats"
)

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		name string
		s    string
		n    int
		want []string
	}{
		{"fits", "one two", 10, []string{"one two"}},
		{"between words", "one two three", 8, []string{"one two", "three"}},
		{"json list at commas", "[1,2,4,8,16]", 6, []string{"[1,2,", "4,8,", "16]"}},
		{"unbroken run", "/a/very/long/path", 6, []string{"/a/ver", "y/long", "/path"}},
		{"empty", "", 10, nil},
	} {
		if got := wrap(c.s, c.n); !slices.Equal(got, c.want) {
			t.Errorf("%s: wrap(%q, %d) = %q, want %q", c.name, c.s, c.n, got, c.want)
		}
	}
}

// pingpongConfig is shaped as pingpong's own, whose one-line JSON ran to
// 417 columns.
type pingpongConfig struct {
	Target   string         `json:"target"`
	Protocol map[string]any `json:"protocol"`
	Threads  []int          `json:"threads"`
	IOReason string         `json:"io_reason"`
	CPUs     []int          `json:"cpus"`
	Empty    struct{}       `json:"empty"`
}

// TestHeadWidth: the report's head stays within 100 columns however long
// the config's values and the env's pinning, and keeps every key.
func TestHeadWidth(t *testing.T) {
	threads := make([]int, 40)
	pin := map[string]string{}
	for i := range threads {
		threads[i] = i + 1
		pin[fmt.Sprintf("pingpong/%d", i)] = fmt.Sprint(i % 2)
	}
	cfg := pingpongConfig{
		Target:   "tcp:127.0.0.1:3306",
		Protocol: map[string]any{"user": "sbtest", "command": "oltp-ro", "size": 64},
		Threads:  threads,
		IOReason: "auto: blocking, one OS thread per connection as sysbench's and sockperf's (1 connections on 2 CPUs, at most 32)",
	}
	env := affinity.Env{Hostname: "bench1", OS: "linux", Arch: "amd64", Kernel: "6.8.0-45-generic",
		CPUModel: "Intel(R) Xeon(R) CPU @ 2.20GHz", Cores: 2, GOMAXPROCS: 2, GoVersion: "go1.26.0", ClockSource: "tsc", Pinning: pin}
	run := report.Run{Elapsed: 1200 * time.Millisecond, Latency: stats.NewHistogram(), Events: []int64{10}, Partial: true}
	r := report.Report{Config: cfg, Env: env, Steps: []report.Step{{Threads: 1, Runs: []report.Run{run}}},
		Partial: true, Stop: &report.Stop{Cause: errors.New("interrupted by SIGINT"), Ran: 1234 * time.Millisecond, Planned: 10 * time.Second}}
	var b strings.Builder
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(b.String(), "\n\n")
	for _, l := range strings.Split(head, "\n") {
		if len(l) > width {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	for _, want := range []string{
		"partial: interrupted by SIGINT after 1.2s of 10s; the last run is cut short\nConfig:\n",
		"\n    protocol.command: oltp-ro\n", "\n    cpus:             null\n", "\n    empty:            {}\n",
		"pingpong/39", "\nEnv: host bench1,",
	} {
		if !strings.Contains(head, want) {
			t.Errorf("head lacks %q:\n%s", want, head)
		}
	}
	if !strings.Contains(b.String(), "tps 95% CI of mean:            n/a (one run)\n") {
		t.Errorf("one run's CI not n/a:\n%s", b.String())
	}
}

// TestPartialLine: what the first line says follows what the report holds.
func TestPartialLine(t *testing.T) {
	whole := report.Run{Elapsed: time.Second, Latency: stats.NewHistogram(), Events: []int64{1}}
	cut := whole
	cut.Partial = true
	for _, c := range []struct {
		name string
		r    report.Report
		want string
	}{
		{"complete", report.Report{Steps: []report.Step{{Threads: 1, Runs: []report.Run{whole}}}}, ""},
		{"cut", report.Report{Partial: true, PartialReason: "why",
			Steps: []report.Step{{Threads: 1, Runs: []report.Run{whole, cut}}}}, "partial: why; the last run is cut short"},
		{"nothing", report.Report{Partial: true, PartialReason: "why"}, "partial: why; nothing was measured"},
		{"between steps", report.Report{Partial: true,
			Steps: []report.Step{{Threads: 1, Runs: []report.Run{whole}}}}, "partial: stopped early; the runs shown are whole, the rest never started"},
	} {
		if got := partialLine(c.r); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// The report says what chose the I/O model, with the counts Auto read,
// and keeps the words of a config read back from JSON.
func TestIOReason(t *testing.T) {
	for _, c := range []struct {
		choice iomodel.Choice
		want   string
	}{
		{iomodel.Choice{Model: iomodel.Spin}, "as asked"},
		{iomodel.Choose(3, 2), "auto: blocking, one OS thread per connection as sysbench's and sockperf's (3 connections on 2 CPUs, at most 32)"},
		{iomodel.Choose(40, 2), fmt.Sprintf("auto: netpoll, 40 connections on 2 CPUs are more than the 32 that may each hold an OS thread (%d per CPU, at most %d)",
			iomodel.AutoPerCPU, iomodel.AutoHeldMax)},
	} {
		rc := &report.RunConfig{IO: iomodel.Auto, IOChosen: c.choice.Model, IOChoice: c.choice}
		var b strings.Builder
		if err := WriteJSON(&b, report.Report{Config: rc}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Config struct {
				IOReason string `json:"io_reason"`
			} `json:"config"`
		}
		if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Config.IOReason != c.want {
			t.Errorf("%+v: io_reason %q, want %q", c.choice, doc.Config.IOReason, c.want)
		}
		if rc.IOReason != "" {
			t.Errorf("%+v: the report's own config was changed: %q", c.choice, rc.IOReason)
		}
	}
	read := &report.RunConfig{IOReason: "from JSON"}
	if got := config(report.Report{Config: read}).(*report.RunConfig).IOReason; got != "from JSON" {
		t.Errorf("a config read back: io_reason %q", got)
	}
}

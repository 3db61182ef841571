package present

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/golden"
	"github.com/hoplat/hoplat/present/phrase"
	"github.com/hoplat/hoplat/probe/machine"
)

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, synthetic()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"epoll tcp->tcp", "+37.0", "baseline",
		"skipped socat tcp->tcp: driver: socat not found",
		"epoll: UNIX client leg saves",
		"hop cost (added p50, TCP client leg): epoll 37.0 µs, goroutine 45.5 µs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	golden.Check(t, "report.txt", b.Bytes())
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	rep := synthetic()
	if err := WriteCSV(&b, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(rep.Paths) {
		t.Fatalf("%d rows for %d paths", len(rows), len(rep.Paths))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	epoll := rows[5]
	if epoll[col["name"]] != "epoll tcp->tcp" || epoll[col["added_p50_us"]] != "37.000" || epoll[col["baseline"]] != "direct tcp" {
		t.Errorf("epoll row %q", epoll)
	}
	if epoll[col["relay_us"]] != "" {
		t.Errorf("relay_us without stats: %q", epoll[col["relay_us"]])
	}
}

func TestWriteTextLeadsWithTheMachine(t *testing.T) {
	rep := synthetic()
	rep.Machine = &machine.Machine{
		Wake: machine.WakeUS{SameCPU: 1.2, CrossCPU: 41}, Leg: machine.LegUS{TCP: 1.1, UNIX: 0.6},
		CPUIdle: machine.CPUIdle{Governor: "haltpoll", Driver: "haltpoll"}, Virtualization: "kvm", StealPct: 0.4,
	}
	var b bytes.Buffer
	if err := WriteWideText(&b, rep); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(b.String(), "\n")
	want := "machine: kvm, cpuidle haltpoll/haltpoll; wake-up one way 1.2 µs same CPU, 41.0 µs cross CPU; loopback leg 1.1 µs tcp, 0.6 µs unix; steal 0.4%"
	if first != want {
		t.Errorf("first line\n%q, want\n%q", first, want)
	}
}

func TestWriteTextPlacement(t *testing.T) {
	rep := synthetic()
	rep.Regimes = []hop.RegimeInfo{{Name: "spread", Placement: "spread", Note: "client=0 relay=1 server=0 (client and server share CPU 0: fewer CPUs than components)"}}
	for i := range rep.Paths {
		rep.Paths[i].Regime = "spread"
		rep.Paths[i].Placement = map[string]string{"client": "0", "server": "0"}
		if rep.Paths[i].Relay != hop.Direct {
			rep.Paths[i].Placement["relay"] = "1"
		}
	}
	var b bytes.Buffer
	if err := WriteWideText(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"regime spread: client=0 relay=1 server=0 (client and server share CPU 0", "cpus c/r/s", " 0/-/0 ", " 0/1/0 "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteTextDecomposition(t *testing.T) {
	rep := synthetic()
	for i := range rep.Paths {
		p := &rep.Paths[i]
		p.Regime = "packed"
		p.Placement = map[string]string{"client": "0", "relay": "0", "server": "0"}
		if p.Relay != hop.Direct {
			code := 20.0
			p.RelayUs = &code
		}
		// The endpoints read on the TCP paths only: the UNIX ones show
		// "-" and keep theirs in the residual.
		// Their means run 2 µs further above the direct path's than
		// their added p50: the CPU figures stand for the mean, and the
		// excess comes off them.
		if p.ClientTransport == hop.TCP {
			p.Endpoints = &hop.Endpoints{ClientCPUUs: 10, ServerCPUUs: 5}
			p.LatencyUs.Avg = 30
			if p.Relay != hop.Direct {
				p.Endpoints.ClientCPUUs = 11.5
				p.LatencyUs.Avg = 30 + p.AddedUs.P50 + 2
			}
		}
	}
	hop.Explain(rep.Paths, probed)
	rep.Verdicts = Verdicts(rep)
	var b bytes.Buffer
	if err := WriteWideText(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"where the added p50 goes", "relay code  wake-ups  kernel  endpoints  -mean excess  residual  explained",
		"epoll tcp->tcp: of its 37.0 µs, relay code 20.0, wake-ups 2.0, kernel legs 3.0, endpoints 1.5, less the mean's excess over the p50 2.0, residual 12.5 µs: 66% explained",
		"epoll unix->tcp: of its 34.5 µs, relay code 20.0, wake-ups 2.0, kernel legs 3.0, residual 9.5 µs: 72% explained",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^ *epoll tcp->tcp .* 1\.5 +-2\.0 +12\.5 +66% +probe *$`).MatchString(out) {
		t.Errorf("the table does not say where the wake-ups came from:\n%s", out)
	}
	if strings.Contains(out, "kernel µs") {
		t.Errorf("the old relay/kernel columns stand beside the split:\n%s", out)
	}
}

// A sweep's split rows share their path names: the split table names the
// series of each, as the path table does.
func TestWriteTextDecompositionNamesTheSeries(t *testing.T) {
	rep := synthetic()
	var paths []hop.PathResult
	for _, us := range []float64{0, 100} {
		for _, p := range rep.Paths {
			p.ServiceTimeUs = us
			if p.Relay != hop.Direct {
				code := 20.0
				p.RelayUs = &code
			}
			paths = append(paths, p)
		}
	}
	rep.Paths = paths
	hop.Explain(rep.Paths, probed)
	var b bytes.Buffer
	if err := WriteWideText(&b, rep); err != nil {
		t.Fatal(err)
	}
	_, split, ok := strings.Cut(b.String(), "where the added p50 goes")
	if !ok {
		t.Fatalf("no split table:\n%s", b.String())
	}
	head, _, _ := strings.Cut(strings.SplitN(split, "\n", 3)[1], "\n")
	if !strings.Contains(head, "service µs") {
		t.Errorf("split table header %q names no service time", head)
	}
	if !strings.Contains(split, " 100 ") {
		t.Errorf("split rows do not show the 100 µs series:\n%s", split)
	}
}

// The default text fits 100 columns with the machine line, the regimes,
// the split and the verdicts in it, and still says what the wide one says
// of every path.
func TestWriteTextFits100Columns(t *testing.T) {
	rep := synthetic()
	rep.Machine = &machine.Machine{
		Wake: machine.WakeUS{SameCPU: 1.2, CrossCPU: 41}, Leg: machine.LegUS{TCP: 1.1, UNIX: 0.6},
		CPUIdle: machine.CPUIdle{Governor: "haltpoll", Driver: "haltpoll"}, Virtualization: "kvm", StealPct: 0.4, IsolatedCPUs: "3",
	}
	var paths []hop.PathResult
	for _, regime := range []string{"packed", "spread"} {
		rep.Regimes = append(rep.Regimes, hop.RegimeInfo{Name: regime, Note: "client=0 relay=1 server=0 (client and server share CPU 0: fewer CPUs than components)"})
		for _, p := range rep.Paths {
			p.Regime = regime
			p.Name += " " + regime
			p.Placement = map[string]string{"client": "0", "relay": "1", "server": "0"}
			if p.Relay != hop.Direct {
				code := 20.0
				p.RelayUs = &code
				p.Stable, p.UnstableReason = false, "round p50s 60, 90 µs: max/min 1.5 > 1.3"
			}
			paths = append(paths, p)
		}
	}
	rep.Paths = paths
	hop.Explain(rep.Paths, probed)
	rep.Verdicts = Verdicts(rep)
	var narrow, wide bytes.Buffer
	if err := WriteText(&narrow, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteWideText(&wide, rep); err != nil {
		t.Fatal(err)
	}
	widest := 0
	for _, l := range strings.Split(wide.String(), "\n") {
		widest = max(widest, len([]rune(l)))
	}
	if widest <= TextWidth {
		t.Fatalf("the wide text is %d columns: the test would prove nothing", widest)
	}
	for _, l := range strings.Split(narrow.String(), "\n") {
		if n := len([]rune(l)); n > TextWidth {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	out := narrow.String()
	for _, p := range rep.Paths {
		short := strings.TrimSuffix(p.Name, " "+p.Regime)
		if !regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(short) + ` .*` + regexp.QuoteMeta(phrase.Us(p.LatencyUs.P50))).MatchString(out) {
			t.Errorf("%s: no row with its p50", p.Name)
		}
	}
	for _, want := range []string{"packed:\n", "spread:\n", "UNSTABLE", "where the added p50 goes", "code  wake  kernel"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// The split's prose is the split table's rows again: left out here.
	if strings.Contains(out, "% explained") {
		t.Errorf("the split repeated in prose:\n%s", out)
	}
}

// probed is a machine with round constants: 1 µs same CPU, 40 across.
var probed = &machine.Machine{
	Wake: machine.WakeUS{SameCPU: 1, CrossCPU: 40},
	Leg:  machine.LegUS{TCP: 1.5, UNIX: 0.5},
}

// A partial report says so on its first line in every text style, within
// TextWidth; a path with no kept round reads "unmeasured", not zeros, in
// the text and has empty figure cells in the CSV. A complete report has
// neither.
func TestPartialReport(t *testing.T) {
	rep := synthetic()
	rep.Partial = true
	rep.PartialReason = "interrupted by SIGINT after round 3 of 11"
	last := &rep.Paths[len(rep.Paths)-1]
	for i := range last.Rounds {
		last.Rounds[i].Kept = false
	}
	last.Unmeasured = true
	for name, write := range map[string]func(*bytes.Buffer) error{
		"brief": func(b *bytes.Buffer) error { return WriteBrief(b, rep) },
		"full":  func(b *bytes.Buffer) error { return WriteText(b, rep) },
		"wide":  func(b *bytes.Buffer) error { return WriteWideText(b, rep) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(b.String(), "\n")
		if !strings.HasPrefix(first, "PARTIAL REPORT: interrupted by SIGINT after round 3 of 11") || len([]rune(first)) > TextWidth {
			t.Errorf("%s: first line %q, want the partial mark within %d columns", name, first, TextWidth)
		}
		row := ""
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), shortName(*last, false)) {
				row = l
				break
			}
		}
		if !strings.Contains(row, "unmeasured") {
			t.Errorf("%s: the unmeasured path's row %q does not say so", name, row)
		}
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := rows[len(rows)-1]
	for i, col := range csvHeader {
		if (col == "p50_us" || col == "tps") && got[i] != "" {
			t.Errorf("csv %s of the unmeasured path %q, want empty", col, got[i])
		}
	}
	// Complete: no mark.
	b.Reset()
	if err := WriteBrief(&b, synthetic()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "PARTIAL") || strings.Contains(b.String(), "unmeasured") {
		t.Errorf("a complete report says partial or unmeasured:\n%s", b.String())
	}
}

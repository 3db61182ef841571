package probe

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/probe/machine"
)

func requirePinning(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("probing pins threads with Linux's sched_setaffinity")
	}
}

func requirePinningB(b *testing.B) {
	b.Helper()
	if runtime.GOOS != "linux" {
		b.Skip("probing pins threads with Linux's sched_setaffinity")
	}
}

// quick keeps a test's probe well under a second.
var quick = Options{Rounds: 3, RoundTime: 10 * time.Millisecond}

func TestRunSane(t *testing.T) {
	requirePinning(t)
	m, err := Run(context.Background(), quick)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", m)
	finite := func(name string, v float64) {
		t.Helper()
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s = %v, not finite", name, v)
		}
	}
	// A one-way message between two threads takes at least a system call
	// each side; nothing on a machine that runs this does it in 100 ns,
	// nor takes 100 ms.
	plausible := func(name string, v float64) {
		t.Helper()
		finite(name, v)
		if v < 0.1 || v > 100_000 {
			t.Errorf("%s = %v µs, implausible", name, v)
		}
	}
	plausible("wake same-cpu", m.Wake.SameCPU)
	plausible("socketpair same-cpu", m.WakeSocket.SameCPU)
	// cat is on every machine that runs these tests: the wake-up to
	// another process is measured, and the relay floor is priced with it.
	if m.WakeProcessSkipped != "" {
		t.Errorf("process wake-up skipped: %s", m.WakeProcessSkipped)
	}
	plausible("wake same-cpu process", m.WakeProcess.SameCPU)
	if want := 2 * (m.Leg.TCP + m.WakeProcess.SameCPU); m.RelayFloorUS() != want {
		t.Errorf("relay floor %v µs, want 2 × (tcp leg %v + process wake-up %v)", m.RelayFloorUS(), m.Leg.TCP, m.WakeProcess.SameCPU)
	}
	finite("tcp leg", m.Leg.TCP)
	finite("unix leg", m.Leg.UNIX)
	finite("steal", m.StealPct)
	// A share of the CPUs' time by its definition, on any machine.
	if m.StealPct < 0 || m.StealPct > 100 {
		t.Errorf("steal %v%%", m.StealPct)
	}
	for _, f := range m.Figures {
		if len(f.RoundsUS) != quick.Rounds {
			t.Errorf("%s: %d rounds kept, want %d", f.Name, len(f.RoundsUS), quick.Rounds)
		}
		if f.MinUS > f.MedianUS || f.MedianUS > f.MaxUS {
			t.Errorf("%s: min %v median %v max %v out of order", f.Name, f.MinUS, f.MedianUS, f.MaxUS)
		}
		if !strings.HasSuffix(f.Name, "leg") && !strings.HasSuffix(f.Name, "extra") && f.Samples < quick.Rounds {
			// A round stops at minSamples or ten times its length,
			// whichever comes first: at least one each.
			t.Errorf("%s: %d samples, want at least one per round", f.Name, f.Samples)
		}
	}
	if m.Virtualization == "" || m.VirtSource == "" {
		t.Errorf("virtualization %q from %q, want a name or none", m.Virtualization, m.VirtSource)
	}
	if m.Figures[0].CPUs != "0" && len(m.CPUs) > 0 && m.Figures[0].CPUs == "" {
		t.Errorf("figure without CPUs: %+v", m.Figures[0])
	}

	if len(m.CPUs) < 2 {
		if m.CrossSkip == nil || m.CrossSkip.CPU != m.CPUs[0] {
			t.Errorf("one CPU %v and the missing cross-CPU figure's reason %+v", m.CPUs, m.CrossSkip)
		}
		t.Skipf("cross-CPU figures: one CPU (%+v)", m.CrossSkip)
	}
	plausible("wake cross-cpu", m.Wake.CrossCPU)
	plausible("socketpair cross-cpu", m.WakeSocket.CrossCPU)
	if m.CrossSkip != nil || m.CrossRelation == "" {
		t.Errorf("two CPUs %v, yet skipped %+v relation %q", m.CPUs, m.CrossSkip, m.CrossRelation)
	}
}

// The JSON carries the fields hopbench's "machine" object promises.
func TestMachineJSON(t *testing.T) {
	m := machine.Machine{
		Wake:           machine.WakeUS{SameCPU: 2.5, CrossCPU: 40},
		Leg:            machine.LegUS{TCP: 3, UNIX: 1.5},
		CPUIdle:        machine.CPUIdle{Governor: "haltpoll", Driver: "haltpoll"},
		Virtualization: "kvm",
		StealPct:       0.5,
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"wake_us.same_cpu", "wake_us.cross_cpu", "leg_us.tcp", "leg_us.unix",
		"cpuidle.governor", "cpuidle.driver", "virtualization", "steal_pct", "smt"} {
		var v any = got
		for _, k := range strings.Split(path, ".") {
			obj, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%s: not an object at %s in %s", path, k, b)
			}
			v, ok = obj[k]
			if !ok {
				t.Fatalf("%s missing in %s", path, b)
			}
		}
	}
	m.Wake.CrossCPU, m.CrossCPUSkipped = 0, "one CPU"
	b, _ = json.Marshal(m)
	if strings.Contains(string(b), `"cross_cpu":`) {
		t.Errorf("a skipped cross-CPU figure is in the JSON as a number: %s", b)
	}
}

func TestRunPinnedOneCPU(t *testing.T) {
	requirePinning(t)
	m, err := Run(context.Background(), Options{Rounds: 1, RoundTime: 5 * time.Millisecond, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.CrossSkip; s == nil || !s.Asked || s.CPU != 0 || m.Wake.CrossCPU != 0 || m.Wake.SameCPU <= 0 {
		t.Errorf("one CPU asked: skipped %+v cross %v same %v", s, m.Wake.CrossCPU, m.Wake.SameCPU)
	}
}

func TestRunCPUNotOnline(t *testing.T) {
	requirePinning(t)
	online, err := affinity.OnlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	bad := online.CPUs()[online.Len()-1] + 1
	_, err = Run(context.Background(), Options{Rounds: 1, RoundTime: time.Millisecond, CPUs: []int{bad}})
	if !errors.Is(err, affinity.ErrNotOnline) {
		t.Fatalf("probe on CPU %d: %v, want ErrNotOnline", bad, err)
	}
}

func TestRunCancelled(t *testing.T) {
	requirePinning(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, quick); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled probe: %v, want context.Canceled", err)
	}
}

package affinity

import (
	"encoding/json"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestCPUModel(t *testing.T) {
	for _, c := range []struct {
		name, cpuinfo, want string
	}{
		{"x86", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: other\n",
			"Intel(R) Xeon(R) CPU @ 2.20GHz"},
		{"arm32 Processor line", "Processor\t: ARMv7 Processor rev 4 (v7l)\nprocessor\t: 0\nBogoMIPS\t: 38.40\n", "ARMv7 Processor rev 4 (v7l)"},
		{"Hardware fallback, model name wins", "Hardware\t: BCM2835\nmodel name\t: ARMv7 rev 4\n", "ARMv7 rev 4"},
		{"arm64 codes only", "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n", ""},
		{"empty", "", ""},
		{"no colon", "model name Intel\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := cpuModel(strings.NewReader(c.cpuinfo)); got != c.want {
				t.Errorf("cpuModel = %q, want %q", got, c.want)
			}
		})
	}
}

func TestCollectEnv(t *testing.T) {
	e := CollectEnv()
	if e.GoVersion != runtime.Version() || e.Cores != runtime.NumCPU() || e.GOMAXPROCS != runtime.GOMAXPROCS(0) {
		t.Errorf("runtime fields: %+v", e)
	}
	if e.Pinning == nil {
		t.Error("Pinning is nil: JSON would print null, not {}")
	}
	if runtime.GOOS != "linux" {
		return
	}
	want, err := os.ReadFile(osreleasePath)
	if err != nil {
		t.Skipf("no %s: %v", osreleasePath, err)
	}
	if e.Kernel != strings.TrimSpace(string(want)) || e.Kernel == "" {
		t.Errorf("Kernel = %q, want %q", e.Kernel, strings.TrimSpace(string(want)))
	}
	if _, err := os.Stat(clocksourcePath); err == nil && e.ClockSource == "" {
		t.Errorf("ClockSource empty though %s exists", clocksourcePath)
	}
}

func TestEnvJSONTags(t *testing.T) {
	b, err := json.Marshal(Env{GOMAXPROCS: 2, GoVersion: "go1.26.0", Pinning: map[string]string{"pongd": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	snake := regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)
	for _, k := range []string{"kernel", "cpu_model", "cores", "gomaxprocs", "go_version", "clock_source", "hostname", "pinning"} {
		if _, ok := m[k]; !ok {
			t.Errorf("env JSON lacks %q: %s", k, b)
		}
	}
	for k := range m {
		if !snake.MatchString(k) {
			t.Errorf("env JSON key %q is not snake_case", k)
		}
	}
}

// A host read from outside has no process: its env carries the machine's
// fields only, as hopbench's "hosts" always printed them; an unpinned
// process still prints "pinning": {}.
func TestEnvJSONHostAndUnpinned(t *testing.T) {
	b, err := json.Marshal(Env{Hostname: "db", OS: "linux", Cores: 4})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"hostname":"db","os":"linux","arch":"","kernel":"","cpu_model":"","cores":4,"clock_source":""}`; string(b) != want {
		t.Errorf("host env JSON %s, want %s", b, want)
	}
	b, err = json.Marshal(Env{GOMAXPROCS: 1, GoVersion: "go1.26.0", Pinning: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if p, ok := m["pinning"].(map[string]any); !ok || len(p) != 0 {
		t.Errorf("unpinned env: pinning %v, want {}", m["pinning"])
	}
}

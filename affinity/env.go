package affinity

import (
	"bufio"
	"io"
	"os"
	"runtime"
	"strings"
)

// Env is the environment a measurement ran in (kernel, CPU model, cores,
// GOMAXPROCS, Go version, pinning obtained), carried by every
// machine-readable output so that two figures are never compared without
// knowing where each came from: pingpong's and hopbench's reports,
// hoprelay's --stats, and each host of a topology run. Fields that cannot
// be read (another OS, a locked-down /proc) are empty rather than an error:
// an unknown clock source does not void a run. A host read from outside
// (package hosts) has no process of its own: its GOMAXPROCS, Go version
// and pinning are zero and left out of its JSON.
type Env struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Kernel      string `json:"kernel"` // release, as uname -r
	CPUModel    string `json:"cpu_model"`
	Cores       int    `json:"cores"` // logical CPUs usable by this process
	GOMAXPROCS  int    `json:"gomaxprocs,omitzero"`
	GoVersion   string `json:"go_version,omitzero"`
	ClockSource string `json:"clock_source"` // tsc is cheap to read; hpet or acpi_pm make every timestamp a slow read
	// Pinning is the placement actually obtained, component -> CPU list
	// ("pingpong": "0-1", "pongd": "3"), filled by the caller after pinning;
	// what was asked for belongs in the config. Empty ({} in JSON) when
	// nothing was pinned; nil (left out) where nobody could pin.
	Pinning map[string]string `json:"pinning,omitzero"`
}

// Linux exposes these as files: no system call needed.
const (
	osreleasePath   = "/proc/sys/kernel/osrelease"
	cpuinfoPath     = "/proc/cpuinfo"
	clocksourcePath = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
)

// CollectEnv reads the environment of the running process.
func CollectEnv() Env {
	host, _ := os.Hostname()
	e := Env{
		Hostname:    host,
		OS:          runtime.GOOS,
		Arch:        runtime.GOARCH,
		Kernel:      readLine(osreleasePath),
		Cores:       runtime.NumCPU(),
		GOMAXPROCS:  runtime.GOMAXPROCS(0),
		GoVersion:   runtime.Version(),
		ClockSource: readLine(clocksourcePath),
		Pinning:     map[string]string{},
	}
	if f, err := os.Open(cpuinfoPath); err == nil {
		e.CPUModel = cpuModel(f)
		f.Close()
	}
	return e
}

func readLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// cpuModel returns the first processor's model from /proc/cpuinfo text. x86
// names it "model name"; arm64 kernels print no model name, only "CPU
// implementer"/"CPU part" codes, and some print "Hardware" or "Processor".
func cpuModel(r io.Reader) string {
	fallback := ""
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "model name":
			return val
		case "Hardware", "Processor", "cpu model":
			if fallback == "" {
				fallback = val
			}
		}
	}
	return fallback
}

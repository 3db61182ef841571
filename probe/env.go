package probe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// cpuTimes is the aggregate "cpu" line of /proc/stat, in USER_HZ ticks
// (proc(5)): user nice system idle iowait irq softirq steal. guest and
// guest_nice are already counted in user and nice.
type cpuTimes struct {
	total, steal uint64
}

// parseProcStat reads the aggregate cpu line of /proc/stat.
func parseProcStat(b []byte) (cpuTimes, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "cpu" {
			continue
		}
		if len(fields) < 9 {
			return cpuTimes{}, fmt.Errorf("probe: /proc/stat cpu line %q: want 8 times, steal the 8th", sc.Text())
		}
		var t cpuTimes
		for i, f := range fields[1:9] {
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return cpuTimes{}, fmt.Errorf("probe: /proc/stat cpu line field %d %q: %w", i+1, f, err)
			}
			if t.total+v < t.total {
				return cpuTimes{}, fmt.Errorf("probe: /proc/stat cpu line %q: times overflow", sc.Text())
			}
			t.total += v
			if i == 7 {
				t.steal = v
			}
		}
		return t, nil
	}
	return cpuTimes{}, errors.New("probe: /proc/stat has no aggregate cpu line")
}

func readCPUTimes(fsys fs.FS) (cpuTimes, error) {
	b, err := fs.ReadFile(fsys, "proc/stat")
	if err != nil {
		return cpuTimes{}, fmt.Errorf("probe: steal time: %w", err)
	}
	return parseProcStat(b)
}

// StealMeter measures the share of CPU time the hypervisor gave to other
// guests (steal in /proc/stat) over an interval: a measurement taken while
// its vCPUs were not running reports the hypervisor's scheduling, not the
// code under test.
type StealMeter struct {
	fsys  fs.FS
	start cpuTimes
	err   error
}

// StartSteal starts a steal measurement.
func StartSteal() *StealMeter { return startSteal(os.DirFS("/")) }

func startSteal(fsys fs.FS) *StealMeter {
	m := &StealMeter{fsys: fsys}
	m.start, m.err = readCPUTimes(fsys)
	return m
}

// Pct returns the percentage of all CPUs' time stolen since StartSteal.
// An interval shorter than a tick (USER_HZ, 10 ms) reads as 0.
func (m *StealMeter) Pct() (float64, error) {
	if m.err != nil {
		return 0, m.err
	}
	now, err := readCPUTimes(m.fsys)
	if err != nil {
		return 0, err
	}
	return stealPct(m.start, now), nil
}

func stealPct(a, b cpuTimes) float64 {
	if b.total <= a.total || b.steal < a.steal {
		return 0
	}
	return 100 * float64(b.steal-a.steal) / float64(b.total-a.total)
}

// Virt is what the probe found out about virtualization.
type Virt struct {
	VM        string // systemd-detect-virt's names: kvm, qemu, vmware, microsoft, xen, amazon, ...; "none"
	Container string // docker, podman, lxc, ...; "none"; "" when unknown
	Source    string // how VM was found: systemd-detect-virt, dmi, cpuinfo
}

// dmiVendors maps what /sys/class/dmi/id says to systemd-detect-virt's
// names (src/basic/virt.c in systemd), so the two sources agree.
var dmiVendors = []struct{ substr, name string }{
	{"KVM", "kvm"},
	{"OpenStack", "kvm"},
	{"KubeVirt", "kvm"},
	{"Amazon EC2", "amazon"},
	{"QEMU", "qemu"},
	{"VMware", "vmware"},
	{"VMW", "vmware"},
	{"innotek GmbH", "oracle"},
	{"VirtualBox", "oracle"},
	{"Oracle Corporation", "oracle"},
	{"Xen", "xen"},
	{"Bochs", "bochs"},
	{"Parallels", "parallels"},
	{"BHYVE", "bhyve"},
	{"Hyper-V", "microsoft"},
	{"Apple Virtualization", "apple"},
	{"Google Compute Engine", "google"},
}

// detectVirt asks systemd-detect-virt(1) when it is installed, which
// knows every hypervisor's CPUID leaf; otherwise it reads the DMI strings
// the hypervisor's firmware sets, then the "hypervisor" CPU flag, which
// the kernel sets on any guest (X86_FEATURE_HYPERVISOR) but names none.
func detectVirt(ctx context.Context, fsys fs.FS, lookPath func(string) (string, error)) Virt {
	if path, err := lookPath("systemd-detect-virt"); err == nil {
		run := func(arg string) (string, bool) {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			// It exits 1 and prints "none" when it finds nothing.
			out, err := exec.CommandContext(ctx, path, arg).Output()
			s := strings.TrimSpace(string(out))
			var exit *exec.ExitError
			if s == "" || (err != nil && !errors.As(err, &exit)) {
				return "", false
			}
			return s, true
		}
		vm, okVM := run("--vm")
		ct, okCT := run("--container")
		if okVM {
			v := Virt{VM: vm, Source: "systemd-detect-virt"}
			if okCT {
				v.Container = ct
			}
			return v
		}
	}
	v := Virt{VM: "none", Source: "dmi"}
	for _, name := range []string{"sys_vendor", "product_name", "board_vendor", "bios_vendor"} {
		b, err := fs.ReadFile(fsys, "sys/class/dmi/id/"+name)
		if err != nil {
			continue
		}
		for _, d := range dmiVendors {
			if strings.Contains(string(b), d.substr) {
				v.VM = d.name
				return v
			}
		}
	}
	if b, err := fs.ReadFile(fsys, "proc/cpuinfo"); err == nil && hasHypervisorFlag(b) {
		return Virt{VM: "unknown", Source: "cpuinfo"}
	}
	return v
}

func hasHypervisorFlag(cpuinfo []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(key) != "flags" {
			continue
		}
		for _, f := range strings.Fields(val) {
			if f == "hypervisor" {
				return true
			}
		}
		return false
	}
	return false
}

// readClocksource says which clock time.Now reads: "tsc" is read in user
// space by the vDSO; others (kvm-clock unstable, hpet, acpi_pm) can cost a
// system call per reading, which inflates every timed figure.
func readClocksource(fsys fs.FS) string {
	b, err := fs.ReadFile(fsys, "sys/devices/system/clocksource/clocksource0/current_clocksource")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

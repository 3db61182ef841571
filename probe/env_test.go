package probe

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/fstest"
)

const procStat = `cpu  3175 0 1585 47053 250 0 52 10 0 0
cpu0 1351 0 658 24015 22 0 9 4 0 0
cpu1 1823 0 926 23037 227 0 42 6 0 0
intr 1 2 3
`

func TestParseProcStat(t *testing.T) {
	got, err := parseProcStat([]byte(procStat))
	if err != nil {
		t.Fatal(err)
	}
	if want := (cpuTimes{total: 3175 + 1585 + 47053 + 250 + 52 + 10, steal: 10}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8\n", "cpu 1 2 3\n", "cpu 1 2 3 4 5 6 7 x\n", "cpu 18446744073709551615 1 0 0 0 0 0 0\n"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestStealPct(t *testing.T) {
	a := cpuTimes{total: 1000, steal: 10}
	if got := stealPct(a, cpuTimes{total: 1200, steal: 60}); got != 25 {
		t.Errorf("50 of 200 ticks stolen: %v%%, want 25", got)
	}
	if got := stealPct(a, a); got != 0 {
		t.Errorf("no time passed: %v%%, want 0", got)
	}
	fsys := fstest.MapFS{"proc/stat": {Data: []byte(procStat)}}
	m := startSteal(fsys)
	if pct, err := m.Pct(); err != nil || pct != 0 {
		t.Errorf("unchanged /proc/stat: %v, %v", pct, err)
	}
	if _, err := startSteal(fstest.MapFS{}).Pct(); err == nil {
		t.Error("no /proc/stat, no error")
	}
	if _, err := StartSteal().Pct(); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("this machine's /proc/stat: %v", err)
	}
}

func noDetectVirt(string) (string, error) { return "", exec.ErrNotFound }

func TestDetectVirtDMI(t *testing.T) {
	fsys := fstest.MapFS{
		"sys/class/dmi/id/sys_vendor":   {Data: []byte("QEMU\n")},
		"sys/class/dmi/id/product_name": {Data: []byte("Standard PC (Q35 + ICH9, 2009)\n")},
	}
	if v := detectVirt(context.Background(), fsys, noDetectVirt); v.VM != "qemu" || v.Source != "dmi" {
		t.Errorf("QEMU DMI: %+v", v)
	}
	fsys = fstest.MapFS{"sys/class/dmi/id/product_name": {Data: []byte("VMware Virtual Platform\n")}}
	if v := detectVirt(context.Background(), fsys, noDetectVirt); v.VM != "vmware" {
		t.Errorf("VMware DMI: %+v", v)
	}
}

func TestDetectVirtCPUFlag(t *testing.T) {
	guest := fstest.MapFS{"proc/cpuinfo": {Data: []byte("processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n\nprocessor\t: 1\n")}}
	if v := detectVirt(context.Background(), guest, noDetectVirt); v.VM != "unknown" || v.Source != "cpuinfo" {
		t.Errorf("hypervisor flag alone: %+v", v)
	}
	host := fstest.MapFS{"proc/cpuinfo": {Data: []byte("processor\t: 0\nflags\t\t: fpu vme hypervisorx\n")}}
	if v := detectVirt(context.Background(), host, noDetectVirt); v.VM != "none" {
		t.Errorf("no flag: %+v", v)
	}
}

// A systemd-detect-virt that answers as the real one does on a KVM guest
// in a container: its word wins over the files.
func TestDetectVirtCommand(t *testing.T) {
	script := filepath.Join(t.TempDir(), "systemd-detect-virt")
	body := "#!/bin/sh\ncase \"$1\" in --vm) echo kvm;; --container) echo docker;; esac\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	look := func(string) (string, error) { return script, nil }
	fsys := fstest.MapFS{"sys/class/dmi/id/sys_vendor": {Data: []byte("QEMU\n")}}
	if v := detectVirt(context.Background(), fsys, look); v != (Virt{VM: "kvm", Container: "docker", Source: "systemd-detect-virt"}) {
		t.Errorf("got %+v", v)
	}
	none := "#!/bin/sh\necho none\nexit 1\n"
	if err := os.WriteFile(script, []byte(none), 0o755); err != nil {
		t.Fatal(err)
	}
	if v := detectVirt(context.Background(), fsys, look); v.VM != "none" || v.Source != "systemd-detect-virt" {
		t.Errorf("bare metal: got %+v", v)
	}
}

func TestReadClocksource(t *testing.T) {
	fsys := fstest.MapFS{"sys/devices/system/clocksource/clocksource0/current_clocksource": {Data: []byte("tsc\n")}}
	if got := readClocksource(fsys); got != "tsc" {
		t.Errorf("got %q", got)
	}
	if got := readClocksource(fstest.MapFS{}); got != "" {
		t.Errorf("none: got %q", got)
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte(procStat))
	f.Add([]byte("cpu 1 2 3 4 5 6 7 8 9 10\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ct, err := parseProcStat(b)
		if err == nil && ct.steal > ct.total {
			t.Fatalf("steal %d above total %d", ct.steal, ct.total)
		}
	})
}

func FuzzHypervisorFlag(f *testing.F) {
	f.Add([]byte("flags\t: fpu hypervisor\n"))
	f.Add([]byte("flags:hypervisor"))
	f.Fuzz(func(t *testing.T, b []byte) { hasHypervisorFlag(b) })
}

package affinity

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// CPUFacts is what the kernel says about how it idles, clocks and shares
// the CPUs: the settings that decide what a wake-up costs. A cross-CPU
// wake-up of a halted CPU is an IPI, and on a guest a VM exit and entry;
// cpuidle's governor decides how deep the CPU sleeps (haltpoll polls a
// while before halting), cpufreq's how fast it runs when it wakes.
type CPUFacts struct {
	IdleGovernor string // cpuidle/current_governor: menu, teo, ladder, haltpoll; "" without cpuidle
	IdleDriver   string // cpuidle/current_driver: intel_idle, acpi_idle, haltpoll, none
	FreqGovernor string // cpufreq/policy0/scaling_governor; "" without cpufreq (guests usually)
	FreqDriver   string // cpufreq/policy0/scaling_driver
	SMT          bool   // smt/active, or, without that file, any core with two threads
	Siblings     []CPUSet
	Isolated     CPUSet // cpu/isolated: CPUs taken from load balancing (isolcpus=)
	NoHZFull     CPUSet // cpu/nohz_full: CPUs whose tick stops when one task runs
}

// readCPUFacts reads CPUFacts from the tree under /sys/devices/system,
// given as fsys. A file the kernel does not provide (no cpufreq on a guest,
// no cpuidle on some kernels) leaves its field empty; only a file that is
// there and unreadable or malformed is an error.
func readCPUFacts(fsys fs.FS) (CPUFacts, error) {
	var f CPUFacts
	var err error
	read := func(name string) string {
		if err != nil {
			return ""
		}
		b, rerr := fs.ReadFile(fsys, name)
		if errors.Is(rerr, fs.ErrNotExist) {
			return ""
		}
		if rerr != nil {
			err = fmt.Errorf("affinity: CPU facts: %w", rerr)
		}
		return strings.TrimSpace(string(b))
	}
	f.IdleGovernor = read("cpu/cpuidle/current_governor")
	if f.IdleGovernor == "" {
		// Kernels before 5.x expose the governor read-only under this name.
		f.IdleGovernor = read("cpu/cpuidle/current_governor_ro")
	}
	f.IdleDriver = read("cpu/cpuidle/current_driver")
	f.FreqGovernor = read("cpu/cpufreq/policy0/scaling_governor")
	f.FreqDriver = read("cpu/cpufreq/policy0/scaling_driver")
	smt := read("cpu/smt/active")
	if err != nil {
		return CPUFacts{}, err
	}
	for _, list := range []struct {
		name string
		set  *CPUSet
	}{{"cpu/isolated", &f.Isolated}, {"cpu/nohz_full", &f.NoHZFull}} {
		s := read(list.name)
		if err != nil {
			return CPUFacts{}, err
		}
		if s == "" || s == "(null)" {
			// nohz_full reads "(null)" on a kernel built with it but
			// not booted with it.
			continue
		}
		set, perr := parseList(s, nil)
		if perr != nil {
			return CPUFacts{}, fmt.Errorf("affinity: CPU facts: %s: %q: %w", list.name, s, perr)
		}
		*list.set = set
	}
	topo, terr := readCPULayout(fsys)
	if terr != nil {
		return CPUFacts{}, fmt.Errorf("affinity: CPU facts: %w", terr)
	}
	seen := make(map[string]bool)
	for _, c := range topo.CPUs {
		if c.Threads.Len() > 1 && !seen[c.Threads.String()] {
			seen[c.Threads.String()] = true
			f.Siblings = append(f.Siblings, c.Threads)
		}
	}
	switch smt {
	case "1":
		f.SMT = true
	case "0":
		f.SMT = false
	default:
		f.SMT = len(f.Siblings) > 0
	}
	return f, nil
}

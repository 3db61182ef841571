package machineline

import (
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/present/phrase"
	"github.com/hoplat/hoplat/probe/machine"
)

// Line is the machine in one line, for the head of a text report.
func Line(m machine.Machine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "machine: %s", orNone(m.Virtualization))
	if m.Container != "" && m.Container != "none" {
		fmt.Fprintf(&b, " (%s)", m.Container)
	}
	fmt.Fprintf(&b, ", cpuidle %s/%s", orNone(m.CPUIdle.Governor), orNone(m.CPUIdle.Driver))
	if m.CPUFreqGovernor != "" {
		fmt.Fprintf(&b, ", cpufreq %s", m.CPUFreqGovernor)
	}
	fmt.Fprintf(&b, "; wake-up one way %.1f µs same CPU%s", m.Wake.SameCPU, bimodal(m.Figure("pipe same-cpu")))
	skipped := m.CrossCPUSkipped
	if m.CrossSkip != nil {
		skipped = phrase.OneCPU(*m.CrossSkip)
	}
	if skipped == "" {
		fmt.Fprintf(&b, ", %.1f µs cross CPU%s", m.Wake.CrossCPU, bimodal(m.Figure("pipe cross-cpu")))
	} else {
		fmt.Fprintf(&b, ", cross CPU not measured (%s)", skipped)
	}
	fmt.Fprintf(&b, "; loopback leg %.1f µs tcp, %.1f µs unix; steal %.1f%%", m.Leg.TCP, m.Leg.UNIX, m.StealPct)
	if m.SMT {
		b.WriteString(", SMT on")
	}
	if m.IsolatedCPUs != "" {
		fmt.Fprintf(&b, ", isolated CPUs %s", m.IsolatedCPUs)
	}
	return b.String()
}

// bimodal is a figure's note when its rounds fell in two groups.
func bimodal(f machine.Figure) string {
	if len(f.ModesUS) != 2 {
		return ""
	}
	return fmt.Sprintf(" (bimodal: %.1f and %.1f µs)", f.ModesUS[0], f.ModesUS[1])
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

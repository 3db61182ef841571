package driver

import "github.com/hoplat/hoplat/affinity"

// cpusOf is the --cpus value of a component under p; "" when p leaves it
// unplaced. hoplat's own binaries take it as well as the inherited mask so
// that they pin each worker thread and report the pinning they obtained.
func cpusOf(p affinity.Placement, component string) string {
	if cpus, ok := p.For(component); ok {
		return cpus.String()
	}
	return ""
}

// obtainedCPUs is the CPU list process pid may run on, read back from the
// kernel: what a placement actually obtained, whoever applied it (the
// child's cpuset may forbid some CPUs). "" when it cannot be read, as once
// the process has exited. Components are started on their CPUs by
// affinity.StartOn.
func obtainedCPUs(pid int) string {
	cpus, err := affinity.ProcessCPUs(pid)
	if err != nil {
		return ""
	}
	return cpus.String()
}

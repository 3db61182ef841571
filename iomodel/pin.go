package iomodel

import "github.com/hoplat/hoplat/affinity"

// pinThread pins the calling, locked OS thread to cpu and returns the CPU
// the kernel granted (a cgroup cpuset may refuse it).
func pinThread(cpu int) (int, error) {
	got, err := affinity.PinThread(affinity.NewCPUSet(cpu))
	if err != nil {
		return -1, err
	}
	if cpus := got.CPUs(); len(cpus) > 0 {
		return cpus[0], nil
	}
	return -1, nil
}

package affinity

import "os"

// ReadCPUFacts reads how the kernel idles, clocks and shares the CPUs
// from sysfs.
func ReadCPUFacts() (CPUFacts, error) {
	return readCPUFacts(os.DirFS(sysfs))
}

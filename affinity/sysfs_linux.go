package affinity

import "os"

// sysfs is where the kernel describes CPUs (cpu/) and NUMA nodes (node/).
const sysfs = "/sys/devices/system"

// OnlineCPUs returns the CPUs the kernel has online (cpu/online in sysfs).
// A process may be allowed fewer of them; see ThreadCPUs.
func OnlineCPUs() (CPUSet, error) {
	return readOnline(os.DirFS(sysfs))
}

// ReadCPULayout reads the core, package and NUMA node of every online CPU
// from sysfs.
func ReadCPULayout() (CPULayout, error) {
	return readCPULayout(os.DirFS(sysfs))
}

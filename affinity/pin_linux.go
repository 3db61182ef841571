package affinity

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PinThread locks the calling goroutine to its OS thread
// (runtime.LockOSThread) and restricts that thread to cpus with
// sched_setaffinity(2). It returns the CPUs the kernel granted, read back
// with sched_getaffinity(2): the kernel silently drops CPUs that the
// process's cgroup cpuset forbids, and fails only if none is left.
//
// The goroutine stays locked and must not unlock: an unlocked pinned thread
// goes back to the runtime's pool and runs other goroutines on the narrowed
// mask. The intended caller is a worker goroutine that pins itself first and
// stays locked for its whole life; when it returns still locked, the runtime
// terminates the thread. If the kernel refuses the mask, the thread's mask
// and lock are as they were.
func PinThread(cpus CPUSet) (granted CPUSet, err error) {
	if err := checkOnline(cpus); err != nil {
		return CPUSet{}, fmt.Errorf("affinity: pin thread to %s: %w", cpus, err)
	}
	runtime.LockOSThread()
	// pid 0 is the calling thread, not the process: affinity is per thread.
	if err := setAffinity(0, cpus); err != nil {
		runtime.UnlockOSThread()
		return CPUSet{}, fmt.Errorf("affinity: pin thread to %s: %w", cpus, err)
	}
	granted, err = getAffinity(0)
	if err != nil {
		return CPUSet{}, fmt.Errorf("affinity: pin thread to %s: %w", cpus, err)
	}
	return granted, nil
}

// ThreadCPUs returns the CPUs the calling thread may run on. Unless the
// goroutine is locked to its thread, the answer is about whichever thread
// happened to run it.
func ThreadCPUs() (CPUSet, error) {
	cpus, err := getAffinity(0)
	if err != nil {
		return CPUSet{}, fmt.Errorf("affinity: thread CPUs: %w", err)
	}
	return cpus, nil
}

// CurrentCPU returns the CPU the calling thread is running on, with
// getcpu(2), which x/sys/unix does not wrap. The answer can be stale as soon
// as it returns unless the thread is pinned to one CPU.
func CurrentCPU() (int, error) {
	var cpu uint32
	_, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0)
	if errno != 0 {
		return 0, fmt.Errorf("affinity: current CPU: %w", os.NewSyscallError("getcpu", errno))
	}
	return int(cpu), nil
}

func checkOnline(cpus CPUSet) error {
	if cpus.Len() == 0 {
		return errors.New("empty CPU set")
	}
	online, err := OnlineCPUs()
	if err != nil {
		return err
	}
	for _, cpu := range cpus.cpus {
		if !online.Contains(cpu) {
			return fmt.Errorf("CPU %d %w (online %s)", cpu, ErrNotOnline, online)
		}
	}
	return nil
}

func setAffinity(tid int, cpus CPUSet) error {
	mask := unix.NewCPUSet(cpus.cpus[len(cpus.cpus)-1] + 1)
	for _, cpu := range cpus.cpus {
		mask.Set(cpu)
	}
	return os.NewSyscallError("sched_setaffinity", unix.SchedSetaffinityDynamic(tid, mask))
}

// getAffinity reads a thread's mask. The kernel refuses with EINVAL a
// buffer smaller than its own mask (nr_cpu_ids bits), so grow until it fits.
func getAffinity(tid int) (CPUSet, error) {
	for n := 1024; ; n *= 2 {
		mask := unix.NewCPUSet(n)
		err := unix.SchedGetaffinityDynamic(tid, mask)
		if errors.Is(err, unix.EINVAL) && n < 1<<22 {
			continue
		}
		if err != nil {
			return CPUSet{}, os.NewSyscallError("sched_getaffinity", err)
		}
		count := mask.Count()
		cpus := make([]int, 0, count)
		for cpu := 0; len(cpus) < count; cpu++ {
			if mask.IsSet(cpu) {
				cpus = append(cpus, cpu)
			}
		}
		return CPUSet{cpus: cpus}, nil
	}
}

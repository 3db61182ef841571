package affinity

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/peer"
)

// Reading or writing vm.stat_refresh runs refresh_vm_stats on every
// online CPU through schedule_on_each_cpu (mm/vmstat.c): a work item on
// the system workqueue of each CPU, which the caller waits for. So each
// write wakes a kworker of CPU 0 at least once, and the reading of CPU 0's
// workers must count those runs and their time; the workers it reads are
// bound kworkers of CPU 0 and no other thread.
func TestReadKworkersCountsQueuedWork(t *testing.T) {
	f, err := os.OpenFile("/proc/sys/vm/stat_refresh", os.O_WRONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, os.ErrNotExist) {
			peer.Unavailable(t, "writing /proc/sys/vm/stat_refresh needs root: "+err.Error())
		}
		t.Fatal(err)
	}
	defer f.Close()
	cpu0 := NewCPUSet(0)
	before, err := ReadKworkers(cpu0)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	for range n {
		if _, err := f.Write([]byte("1\n")); err != nil {
			t.Fatal(err)
		}
	}
	after, err := ReadKworkers(cpu0)
	if err != nil {
		t.Fatal(err)
	}
	ran, runs := after.Since(before)
	// Each write waits for CPU 0's item to have run: a worker woken for
	// each, unless it was running already (another item of the same
	// worker), which leaves well over half of them.
	if runs < n/2 || ran <= 0 {
		t.Errorf("CPU 0's kworkers ran %v in %d runs over %d writes of stat_refresh", ran, runs, n)
	}
	total, totalRuns := after.Since(Kworkers{})
	if total < ran || totalRuns < runs {
		t.Errorf("since boot %v in %d runs, below the %v in %d since the first reading", total, totalRuns, ran, runs)
	}
	for w := range after.ran {
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(w.pid) + "/comm")
		if err == nil && !strings.HasPrefix(string(comm), "kworker/0:") {
			t.Errorf("PID %d %q is not a kworker of CPU 0", w.pid, comm)
		}
	}
	if _, err := ReadKworkers(NewCPUSet(1 << 20)); err == nil {
		t.Error("a CPU the machine does not have has kworkers")
	}
	t.Logf("%d kworkers of CPU 0 ran %v in %d runs over %d stat_refresh writes", after.Threads(), ran, runs, n)

	online, err := OnlineCPUs()
	if err != nil || !online.Contains(1) {
		return
	}
	cpu1, err := ReadKworkers(NewCPUSet(1))
	if err != nil {
		t.Fatal(err)
	}
	for w := range cpu1.ran {
		if _, ok := after.ran[w]; ok {
			t.Errorf("PID %d read as a kworker of CPU 0 and of CPU 1", w.pid)
		}
	}
}

package driver

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/hosts"
)

// A component started on a CPU set runs there from its first instruction,
// as sched_getaffinity reads its mask, the placement records what it
// obtained, and the driver's own process keeps its mask.
func TestStartOnCPUs(t *testing.T) {
	online, err := affinity.OnlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if online.Len() < 2 {
		t.Skipf("online CPUs %s: pinning to one is indistinguishable from not pinning", online)
	}
	before, err := affinity.ProcessCPUs(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	last := online.CPUs()[online.Len()-1]
	want := affinity.NewCPUSet(last)
	p, err := hosts.Start(hosts.Command{Name: "sleeper", Argv: []string{"sleep", "60"}, CPUs: want})
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("sched_setaffinity refused here: %v", err)
		}
		t.Fatal(err)
	}
	defer p.Stop()
	got, err := affinity.ProcessCPUs(p.PID())
	if err != nil || !got.Equal(want) {
		t.Errorf("child may use %s, %v; want %s", got, err, want)
	}
	if s := obtainedCPUs(p.PID()); s != strconv.Itoa(last) {
		t.Errorf("obtained CPUs %q, want %d", s, last)
	}
	if after, err := affinity.ProcessCPUs(os.Getpid()); err != nil || !after.Equal(before) {
		t.Errorf("driver's mask changed from %s to %s, %v", before, after, err)
	}
}

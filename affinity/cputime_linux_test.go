package affinity

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A child that burns CPU shows in its parent's figure, live and reaped.
func TestProcessCPUTimeCountsChildren(t *testing.T) {
	sh := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	before, err := ProcessCPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Run(); err != nil {
		t.Fatal(err)
	}
	after, err := ProcessCPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if spent := sh.ProcessState.UserTime() + sh.ProcessState.SystemTime(); after-before < spent/2 || spent < 10*time.Millisecond {
		t.Errorf("child ran %v; the parent's CPU grew %v", spent, after-before)
	}
	if _, err := ProcessCPUTime(1 << 30); err == nil {
		t.Error("a process that does not exist has a CPU time")
	}
}

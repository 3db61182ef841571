package driver

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

// A path whose every round failed is unmeasured; one kept round is enough
// to be measured. The first failure is the first in path order, and the
// count covers discarded rounds too.
func TestFailures(t *testing.T) {
	rep := &hop.Report{Paths: []hop.PathResult{
		{Name: "direct tcp", Threads: 1, Rounds: []hop.Round{{Index: 0, Kept: true}, {Index: 1, Failed: "exit status 1: ERROR 1045"}}},
		{Name: "epoll tcp->tcp", Threads: 1, Rounds: []hop.Round{{Index: 0, Failed: "refused"}, {Index: 1, Failed: "refused again"}}},
	}}
	f := FirstFailure(rep)
	if f == nil || f.Path != "direct tcp (1 threads)" || f.Round != 1 || f.Failed != 3 || !strings.Contains(f.Error(), "ERROR 1045") {
		t.Errorf("FirstFailure = %+v", f)
	}
	err := Unmeasured(rep)
	if err == nil || err.Error() != "no successful round on 1 of 2 paths: epoll tcp->tcp (1 threads)" {
		t.Errorf("Unmeasured = %v", err)
	}
	rep.Paths = rep.Paths[:1]
	if err := Unmeasured(rep); err != nil {
		t.Errorf("Unmeasured with a kept round = %v", err)
	}
	rep.Paths[0].Rounds[1].Failed = ""
	if f := FirstFailure(rep); f != nil {
		t.Errorf("FirstFailure with none failed = %+v", f)
	}
}

package affinity

import (
	"testing"
	"time"
)

// A worker in both readings counts its growth; one new since the first
// counts whole; one gone since counts nothing; a PID given to a later
// worker (another start time) is a new worker, not a shrunk one.
func TestKworkersSince(t *testing.T) {
	base := Kworkers{ran: map[kworker]kworkerUse{
		{pid: 10, start: "5"}: {cpu: 100 * time.Microsecond, runs: 7},
		{pid: 11, start: "5"}: {cpu: 50 * time.Microsecond, runs: 3},  // exits
		{pid: 12, start: "5"}: {cpu: 900 * time.Microsecond, runs: 9}, // PID reused
	}}
	end := Kworkers{ran: map[kworker]kworkerUse{
		{pid: 10, start: "5"}:  {cpu: 130 * time.Microsecond, runs: 10},
		{pid: 12, start: "80"}: {cpu: 2 * time.Microsecond, runs: 1},
		{pid: 13, start: "81"}: {cpu: 5 * time.Microsecond, runs: 2},
	}}
	cpu, runs := end.Since(base)
	if cpu != 37*time.Microsecond || runs != 6 {
		t.Errorf("since: %v in %d runs, want 37µs in 6", cpu, runs)
	}
	if cpu, runs := (Kworkers{}).Since(base); cpu != 0 || runs != 0 {
		t.Errorf("an empty reading ran %v in %d runs", cpu, runs)
	}
	if end.Threads() != 3 {
		t.Errorf("%d threads", end.Threads())
	}
}

func TestKworkerCPU(t *testing.T) {
	for comm, want := range map[string]int{
		"kworker/0:1":              0,
		"kworker/0:1H":             0,
		"kworker/13:2-events":      13,
		"kworker/1:1H-kblockd":     1,
		"kworker/0:0-virtio_vsock": 0,
		"kworker/u8:3-events":      -1, // unbound
		"kworker/R-mm_percpu_wq":   -1, // rescuer
		"kworker/+1:0":             -1,
		"kworker/:0":               -1,
		"kworker/0":                -1,
		"ksoftirqd/0":              -1,
		"kworker0:1":               -1,
	} {
		cpu, ok := kworkerCPU(comm)
		if got := map[bool]int{true: cpu, false: -1}[ok]; got != want {
			t.Errorf("%q: CPU %d %v, want %d", comm, cpu, ok, want)
		}
	}
}

func FuzzKworkerCPU(f *testing.F) {
	for _, s := range []string{"kworker/0:1H-kblockd", "kworker/u8:0", "kworker/R-x", "kworker/-1:0", "kworker/99999999999999999999:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, comm string) {
		cpu, ok := kworkerCPU(comm)
		if ok && cpu < 0 {
			t.Fatalf("%q: CPU %d", comm, cpu)
		}
	})
}

package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/roles"
)

// kworkerRounds samples, round by round, the CPU time of the kernel's
// per-CPU workqueue threads on a stage's CPUs, for the sockmap paths and
// the direct paths they are measured against. A sockmap hop's per-message
// work runs in those threads, not in hoprelay (see hop.Kworkers), so its
// relay code is their time. They are shared by every path of the stage,
// and the rounds of the paths interleave: a whole-run total would mix all
// paths'. So, as relayRounds does for a relay's own process, each sample is read at its start and its end, outside pingpong's timed
// window (it runs in the child, between the readings), and only the
// sample's own cell gets the difference.
type kworkerRounds struct {
	roundReads[affinity.Kworkers, kworkerSample]
	cpus affinity.CPUSet
}

type kworkerSample struct {
	cpu  time.Duration
	runs int64
	ok   bool
}

// newKworkerRounds is nil when no cell is a sockmap path. The CPUs read are
// those of the placement's client, relay and server, whose kworkers the
// hop's work runs in (the sender's CPU runs the verdict and queues the
// work there); every online CPU when a component is left unpinned. A topology
// run's components may run under other kernels, whose threads this one's
// /proc does not show: there the error says so.
func newKworkerRounds(cells []Cell, rounds int, placement affinity.Placement, remote bool) *kworkerRounds {
	want := func(i int) bool { return cells[i].Path.Relay == hop.Sockmap || cells[i].Path.Hops == 0 }
	sockmap := false
	for _, c := range cells {
		sockmap = sockmap || c.Path.Relay == hop.Sockmap
	}
	if !sockmap {
		return nil
	}
	k := &kworkerRounds{}
	k.roundReads = newRoundReads(len(cells), rounds,
		func() (affinity.Kworkers, error) { return affinity.ReadKworkers(k.cpus) },
		func(now, base affinity.Kworkers) kworkerSample {
			cpu, runs := now.Since(base)
			return kworkerSample{cpu: cpu, runs: runs, ok: true}
		})
	k.want = want
	if remote {
		k.err = errors.New("a topology run's components may run under another kernel")
		return k
	}
	var cpus []int
	for _, c := range []string{roles.Client, roles.Relay, roles.Server} {
		set, ok := placement.For(c)
		if !ok {
			online, err := affinity.OnlineCPUs()
			if err != nil {
				k.err = err
				return k
			}
			cpus = online.CPUs()
			break
		}
		cpus = append(cpus, set.CPUs()...)
	}
	k.cpus = affinity.NewCPUSet(cpus...)
	return k
}

// begin reads the workers before cell's sample; end reads them after it
// and keeps the difference for the cell's round.
func (k *kworkerRounds) begin(_ context.Context, cell, _ int) {
	if k != nil {
		k.roundReads.begin(cell)
	}
}

func (k *kworkerRounds) end(_ context.Context, cell, round int, _ hop.Sample) error {
	if k != nil {
		k.roundReads.end(cell, round)
	}
	return nil
}

// perRequest sets each sockmap series' Kworkers and adds their CPU to its
// RelayCPUUs: the workers' CPU time over its kept rounds per request (each
// round's rate times its length with the warm-up, which the workers served
// too, as relayRounds counts), less the same over its direct
// baseline's rounds (same client transport and thread count), floored at
// 0. What the kernel's workers do for everyone else (virtio, vmstat) runs
// during both, and stays out. series is in cell order.
func (k *kworkerRounds) perRequest(series []CellRounds, discard int, round time.Duration) {
	if k == nil {
		return
	}
	type use struct{ cpuUs, runs float64 }
	rate := func(i int) (use, bool) {
		var cpu time.Duration
		var runs int64
		n := 0.0
		for r, smp := range series[i].Samples {
			if r < discard || smp.Failed != "" {
				continue
			}
			s := k.ran[i][r]
			if !s.ok {
				return use{}, false
			}
			cpu += s.cpu
			runs += s.runs
			n += smp.TPS * round.Seconds()
		}
		if n <= 0 {
			return use{}, false
		}
		return use{cpuUs: float64(cpu) / 1e3 / n, runs: float64(runs) / n}, true
	}
	for i := range series {
		s := &series[i]
		if s.Cell.Path.Relay != hop.Sockmap {
			continue
		}
		kw := &hop.Kworkers{CPUs: k.cpus.String()}
		s.Kworkers = kw
		if k.err != nil {
			kw.Error = fmt.Sprintf("kworkers not read: %v", k.err)
			continue
		}
		own, ok := rate(i)
		if !ok {
			kw.Error = "kworkers not read: no kept round with requests"
			continue
		}
		var base use
		for j := range series {
			b := series[j].Cell
			if b.Path.Hops == 0 && b.Path.Client == s.Cell.Path.Client && b.Threads == s.Cell.Threads {
				base, _ = rate(j)
				break
			}
		}
		kw.BaselineCPUUs = base.cpuUs
		kw.CPUUs = max(0, own.cpuUs-base.cpuUs)
		kw.Runs = max(0, own.runs-base.runs)
		us := kw.CPUUs
		if s.RelayCPUUs != nil {
			us += *s.RelayCPUUs
		}
		s.RelayCPUUs = &us
	}
}

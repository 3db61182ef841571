package hop

import (
	"fmt"
	"math"
	"slices"

	"github.com/hoplat/hoplat/results/stats"
)

// A run's rounds show what moves within it, not what moves between
// invocations: on the 2-vCPU AMD guest three default runs, each steady in
// its own rounds, put goroutine's spread hop at 55.7, 99.4 and 87.8 µs.
// The same command's earlier runs on the same machine show it.

const (
	// maxAcrossRuns is how far a path's added p50 may lie from the median
	// of its runs: a hop's figure is meant to repeat within ±15%.
	maxAcrossRuns = 0.15
	// minPastRuns is the fewest earlier runs a path is judged against:
	// with one, the median of two cannot say which of them moved.
	minPastRuns = 2
)

// PathKey names a path across runs: its name and the stage it ran in.
func PathKey(p PathResult) string {
	return fmt.Sprintf("%s|%s|threads %d|service %g|size %d|rows %d",
		p.Name, p.Regime, p.Threads, p.ServiceTimeUs, p.Size, p.Rows)
}

// AcrossRuns is a path's added p50 against the same command's earlier runs
// on the same machine (hopbench's history).
type AcrossRuns struct {
	Runs     int       `json:"runs"`      // this run and the earlier ones judged with it
	PastUs   []float64 `json:"past_us"`   // the earlier runs' added p50, oldest first
	MedianUs float64   `json:"median_us"` // the median over Runs
	OffPct   float64   `json:"off_pct"`   // this run's added p50 from that median, percent
}

// JudgeAcrossRuns sets each measured relay path's AcrossRuns from past (the
// earlier runs' added p50 by PathKey, oldest first) and flags a path whose
// added p50 lies more than 15% from the median of this run and the earlier
// ones, where at least two earlier runs measured it. It returns how many
// paths it judged and flagged; the machine's share of the flags is marked
// again (machine_noise) over the run's paths.
func JudgeAcrossRuns(paths []PathResult, past map[string][]float64) (judged, flagged int) {
	for i := range paths {
		r := &paths[i]
		prev := past[PathKey(*r)]
		if r.AddedUs == nil || isControl(*r) || !r.Measured() || len(prev) < minPastRuns {
			continue
		}
		all := append(slices.Clone(prev), r.AddedUs.P50)
		med := stats.Median(all)
		if med <= 0 {
			continue
		}
		judged++
		off := (r.AddedUs.P50 - med) / med
		r.AcrossRuns = &AcrossRuns{Runs: len(all), PastUs: prev, MedianUs: med, OffPct: 100 * off}
		if math.Abs(off) <= maxAcrossRuns || !r.Stable {
			continue
		}
		flagged++
		r.Stable = false
		r.UnstableReason = fmt.Sprintf("added p50 %s µs, %+.0f%% from %s µs, the median of this run and the last %d of the same command on this machine (%s µs): its rounds agreed, but the hop moved between runs; likely cause: the host's state between invocations (its other tenants, where it runs the vCPUs, the idle exits' cost)",
			Us(r.AddedUs.P50), 100*off, Us(med), len(prev), list(prev))
	}
	for i := range paths {
		paths[i].MachineNoise = ""
	}
	limitFlagged(paths)
	return judged, flagged
}

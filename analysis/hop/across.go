package hop

import (
	"fmt"
	"math"
	"slices"

	"github.com/hoplat/hoplat/stats"
)

// A run's rounds show what moves within it, not what moves between
// invocations: runs each steady in their own rounds can put one hop far
// apart (docs/measurements.md, "Across runs"). The same command's earlier
// runs on the same machine show it.

const (
	// maxAcrossRuns is how far a path's added p50 may lie from the median
	// of its runs: a hop's figure is meant to repeat within ±15%.
	maxAcrossRuns = 0.15
	// minAcrossUs is the least move flagged however small the hop: a
	// few-µs hop moves by 15% with a tenth of a wake-up, which no reader
	// acts on.
	minAcrossUs = 1.5
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
	// HostScale is this run's control p50 over its earlier runs' median,
	// where the host ran at another speed than in them (HostMoved), and
	// ScaledOffPct the added p50 divided by it, from the median of it and
	// the earlier runs' figures: where that is within 15%, the hop kept
	// its share of the host's speed and is not flagged.
	HostScale    float64  `json:"host_scale,omitempty"`
	ScaledOffPct *float64 `json:"scaled_off_pct,omitempty"`
	// Flagged is set where this moved the path's flag: its rounds
	// agreed, its added p50 did not repeat.
	Flagged bool `json:"flagged,omitempty"`
}

// Past is what the same command's earlier runs on the same machine
// measured, oldest first, by PathKey: each relay path's added p50, and
// each control's (direct path's) p50.
type Past struct {
	Added   map[string][]float64
	Control map[string][]float64
}

// HostMoved is a stage whose control ran more than 15% from its p50 in
// the earlier runs: the host ran at another speed between invocations,
// and a run's hops then move from the runs' median in proportion to its
// control (docs/measurements.md, "Across runs").
type HostMoved struct {
	Stage        string  `json:"stage"`
	Control      string  `json:"control"`
	P50Us        float64 `json:"p50_us"`
	PastMedianUs float64 `json:"past_median_us"`
}

// hostScale is base's p50 over its earlier runs' median, and whether that
// is a move of the host (more than maxAcrossRuns).
func hostScale(base *PathResult, past Past) (scale float64, moved bool) {
	if base == nil {
		return 0, false
	}
	prev := past.Control[PathKey(*base)]
	if len(prev) < minPastRuns || base.LatencyUs.P50 <= 0 {
		return 0, false
	}
	med := stats.Median(prev)
	if med <= 0 {
		return 0, false
	}
	scale = base.LatencyUs.P50 / med
	return scale, math.Abs(scale-1) > maxAcrossRuns
}

// JudgeAcrossRuns sets each measured relay path's AcrossRuns from past and
// flags a path whose added p50 lies more than 15% (and minAcrossUs) from
// the median of this run and the earlier ones, where at least two earlier runs measured it.
// Where the path's control moved more than 15% from its own earlier p50s
// (the host ran at another speed), the path is flagged only if its added
// p50 divided by the control's move is off by as much too. It returns how
// many paths it judged and flagged, and the stages whose host moved; the
// machine's share of the flags is marked again (machine_noise) over the
// run's paths.
func JudgeAcrossRuns(paths []PathResult, past Past) (judged, flagged int, moved []HostMoved) {
	for i := range paths {
		r := &paths[i]
		if !isControl(*r) {
			continue
		}
		if scale, ok := hostScale(r, past); ok {
			moved = append(moved, HostMoved{Stage: stageName(groupOf(*r)), Control: r.Name,
				P50Us: r.LatencyUs.P50, PastMedianUs: r.LatencyUs.P50 / scale})
		}
	}
	for i := range paths {
		r := &paths[i]
		prev := past.Added[PathKey(*r)]
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
		a := &AcrossRuns{Runs: len(all), PastUs: prev, MedianUs: med, OffPct: 100 * off}
		r.AcrossRuns = a
		if math.Abs(off) <= maxAcrossRuns || math.Abs(r.AddedUs.P50-med) <= minAcrossUs || !r.Stable {
			continue
		}
		base := baselineResult(paths, *r)
		if scale, ok := hostScale(base, past); ok {
			scaled := r.AddedUs.P50 / scale
			sm := stats.Median(append(slices.Clone(prev), scaled))
			soff := 100 * (scaled - sm) / sm
			a.HostScale, a.ScaledOffPct = scale, &soff
			if math.Abs(soff) <= 100*maxAcrossRuns || math.Abs(scaled-sm) <= minAcrossUs {
				continue
			}
		}
		flagged++
		a.Flagged = true
		r.Stable = false
		flag := &AcrossFlag{}
		if a.ScaledOffPct != nil {
			flag.Baseline = base.Name
		}
		r.Instability = &Instability{Across: flag}
	}
	for i := range paths {
		paths[i].MachineNoise, paths[i].Noisy = "", nil
	}
	limitFlagged(paths)
	return judged, flagged, moved
}

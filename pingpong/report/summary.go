package report

import (
	"time"

	mstats "github.com/montanaflynn/stats"
)

func perSecond(n int64, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(n) / elapsed.Seconds()
}

// Fairness is how evenly the events spread over the workers, as sysbench's
// "Threads fairness: events (avg/stddev)": the mean events per worker and
// their population standard deviation (sysbench divides by the thread count).
type Fairness struct {
	EventsAvg    float64 `json:"events_avg"`
	EventsStdDev float64 `json:"events_stddev"`
}

// FairnessOf computes the fairness of per-worker event counts.
func FairnessOf(events []int64) Fairness {
	if len(events) == 0 {
		return Fairness{}
	}
	f := make(mstats.Float64Data, len(events))
	for i, e := range events {
		f[i] = float64(e)
	}
	avg, _ := f.Mean()
	sd, _ := f.StandardDeviationPopulation()
	return Fairness{EventsAvg: avg, EventsStdDev: sd}
}

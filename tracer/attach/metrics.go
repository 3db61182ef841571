package attach

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics exports chunks through prometheus/client_golang:
// hoplat_proxy_residence_seconds{direction,comm,pid,…} (a histogram, both
// native and classic) and hoplat_proxy_split_seconds_total{direction,part,
// comm,pid,…} (counters whose sum per direction is the residences' sum).
// Its methods are for one goroutine (Run's, through Config.OnChunk).
type Metrics struct {
	residence *prometheus.HistogramVec
	split     *prometheus.CounterVec
	// per holds each (process, direction)'s series, looked up once:
	// observing a chunk then formats no label and allocates nothing.
	per map[seriesKey]*series
}

type seriesKey struct {
	pid int
	dir Direction
}

type series struct {
	residence prometheus.Observer
	parts     [4]prometheus.Counter // blocked, runnable, on_cpu, softirq
}

// NativeBucketFactor is the native histogram's bucket growth: client_golang
// picks the largest schema whose factor is at most this, 2^(1/16), so a
// quantile interpolated inside one bucket is off by less than 5%.
const NativeBucketFactor = 1.05

// ClassicBuckets are the classic histogram's upper bounds, seconds: a microsecond
// to 20 ms in 130 buckets of equal ratio (about 1.08). histogram_quantile
// interpolates linearly inside the bucket holding the quantile, so its
// answer is off by at most that bucket's width, 8%, anywhere in the range.
var ClassicBuckets = prometheus.ExponentialBucketsRange(1e-6, 20e-3, 130)

// reserved are the label names Metrics sets itself.
var reserved = []string{"direction", "part", "comm", "pid"}

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// NewMetrics registers the metrics with reg; labels (the user's, such as
// instance or version) are set on every series.
func NewMetrics(reg prometheus.Registerer, labels map[string]string) (*Metrics, error) {
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		switch {
		case !labelName.MatchString(k) || len(k) > 1 && k[:2] == "__":
			return nil, fmt.Errorf("attach: label %q: want a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not __…)", k)
		case slices.Contains(reserved, k):
			return nil, fmt.Errorf("attach: label %q: attach sets it itself", k)
		}
	}
	m := &Metrics{
		residence: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:        "hoplat_proxy_residence_seconds",
			Help:        "How long a chunk of bytes stayed in the proxy, from its arrival on the inbound socket to the send of its last byte.",
			ConstLabels: labels,
			Buckets:     ClassicBuckets,
			// The native buckets hold any residence at the same
			// relative width; a spread wider than the bucket limit
			// halves the resolution rather than dropping chunks.
			NativeHistogramBucketFactor:     NativeBucketFactor,
			NativeHistogramMaxBucketNumber:  400,
			NativeHistogramMinResetDuration: time.Hour,
		}, []string{"direction", "comm", "pid"}),
		split: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name:        "hoplat_proxy_split_seconds_total",
			Help:        "Where the chunks' residence went: blocked, runnable, on_cpu, softirq.",
			ConstLabels: labels,
		}, []string{"direction", "part", "comm", "pid"}),
		per: map[seriesKey]*series{},
	}
	for _, c := range []prometheus.Collector{m.residence, m.split} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Observe adds one chunk.
func (m *Metrics) Observe(c Chunk) {
	k := seriesKey{c.Pid, c.Direction}
	s := m.per[k]
	if s == nil {
		d, pid, name := c.Direction.String(), strconv.Itoa(c.Pid), comm(c.Pid)
		s = &series{residence: m.residence.WithLabelValues(d, name, pid)}
		for i, part := range []string{"blocked", "runnable", "on_cpu", "softirq"} {
			s.parts[i] = m.split.WithLabelValues(d, part, name, pid)
		}
		m.per[k] = s
	}
	s.residence.Observe(c.Residence().Seconds())
	s.parts[0].Add(c.Split.Blocked.Seconds())
	s.parts[1].Add(c.Split.Runnable.Seconds())
	s.parts[2].Add(c.Split.OnCPU.Seconds())
	s.parts[3].Add(c.Split.Softirq.Seconds())
}

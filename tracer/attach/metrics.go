package attach

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics exports chunks as OpenMetrics through prometheus/client_golang:
// hoplat_proxy_residence_seconds{direction} (a histogram) and
// hoplat_proxy_split_seconds_total{direction,part} (counters whose sum
// per direction is the residences' sum).
type Metrics struct {
	residence *prometheus.HistogramVec
	split     *prometheus.CounterVec
}

// NewMetrics registers the metrics with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		residence: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hoplat_proxy_residence_seconds",
			Help: "How long a chunk of bytes stayed in the proxy, from its arrival on the inbound socket to the send of its last byte.",
			// 1 µs .. about 1 s: a proxy's hop is µs, a stall ms.
			Buckets: prometheus.ExponentialBuckets(1e-6, 2, 21),
		}, []string{"direction"}),
		split: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hoplat_proxy_split_seconds_total",
			Help: "Where the chunks' residence went: blocked, runnable, on_cpu, softirq.",
		}, []string{"direction", "part"}),
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
	d := c.Direction.String()
	m.residence.WithLabelValues(d).Observe(c.Residence().Seconds())
	m.split.WithLabelValues(d, "blocked").Add(c.Split.Blocked.Seconds())
	m.split.WithLabelValues(d, "runnable").Add(c.Split.Runnable.Seconds())
	m.split.WithLabelValues(d, "on_cpu").Add(c.Split.OnCPU.Seconds())
	m.split.WithLabelValues(d, "softirq").Add(c.Split.Softirq.Seconds())
}

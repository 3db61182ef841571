package present

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/phrase"
)

// WriteProxyTable prints a thread sweep in the shape of the mysql-proxy
// measurements (docs/hopbench.md, "The experiments hoplat reproduces"):
// per thread count, the direct path and each relay path, its tps and p95 round trip, its tps against the direct
// path's, and the relay's share of the latency: the path's p50 less the
// direct path's, over the path's p50; then what its processes held at most (Resources): peak
// RSS of client, relay and server in MiB, the relay's and the server's
// threads and open descriptors. One block per regime and setting of the
// backend; a run of one thread count prints nothing.
func WriteProxyTable(w io.Writer, r *hop.Report) error {
	Words(r)
	var threads []int
	for _, p := range r.Paths {
		if !slices.Contains(threads, p.Threads) {
			threads = append(threads, p.Threads)
		}
	}
	if len(threads) < 2 {
		return nil
	}
	type block struct {
		regime     string
		serviceUs  float64
		size, rows int
		paths      []string
		byPath     map[string]map[int]hop.PathResult
		directTPS  map[string]map[int]float64 // client transport → threads → tps
		directP50  map[string]map[int]float64
	}
	var blocks []*block
	find := func(p hop.PathResult) *block {
		for _, b := range blocks {
			if b.regime == p.Regime && b.serviceUs == p.ServiceTimeUs && b.size == p.Size && b.rows == p.Rows {
				return b
			}
		}
		b := &block{regime: p.Regime, serviceUs: p.ServiceTimeUs, size: p.Size, rows: p.Rows,
			byPath: map[string]map[int]hop.PathResult{}, directTPS: map[string]map[int]float64{}, directP50: map[string]map[int]float64{}}
		blocks = append(blocks, b)
		return b
	}
	for _, p := range r.Paths {
		b := find(p)
		if b.byPath[p.Name] == nil {
			b.byPath[p.Name] = map[int]hop.PathResult{}
			b.paths = append(b.paths, p.Name)
		}
		b.byPath[p.Name][p.Threads] = p
		if p.Relay == hop.Direct {
			if b.directTPS[string(p.ClientTransport)] == nil {
				b.directTPS[string(p.ClientTransport)] = map[int]float64{}
			}
			b.directTPS[string(p.ClientTransport)][p.Threads] = p.TPS
			if b.directP50[string(p.ClientTransport)] == nil {
				b.directP50[string(p.ClientTransport)] = map[int]float64{}
			}
			b.directP50[string(p.ClientTransport)][p.Threads] = p.LatencyUs.P50
		}
	}
	for _, b := range blocks {
		head := "\nThread sweep by client connections"
		if b.regime != "" {
			head += ", regime " + b.regime
		}
		if b.serviceUs != 0 || len(blocks) > 1 {
			head += fmt.Sprintf(", service %s µs, size %d, rows %d", phrase.Us(b.serviceUs), b.size, b.rows)
		}
		fmt.Fprintln(w, head+":")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		width := nameWidth(r.Paths)
		fmt.Fprintf(tw, "threads\t%-*s\ttps\tp95 µs\ttps/direct\trelay's share of p50\terrors\tRSS MiB c/r/s\tthreads r/s\tfds r/s\t\n", width, "path")
		for _, n := range threads {
			for _, name := range b.paths {
				p, ok := b.byPath[name][n]
				if !ok {
					continue
				}
				ratio, share := "-", "-"
				if p.Relay != hop.Direct {
					if d := b.directTPS[string(p.ClientTransport)][n]; d > 0 {
						ratio = fmt.Sprintf("%.2f", p.TPS/d)
					}
					// The direct path's p50 at the same thread count and client
					// leg, against this path's: both from their merged rounds,
					// so the share stays within the path's own round trip.
					if d, ok := b.directP50[string(p.ClientTransport)][n]; ok && p.LatencyUs.P50 > 0 {
						share = fmt.Sprintf("%.0f%%", 100*(p.LatencyUs.P50-d)/p.LatencyUs.P50)
					}
				}
				rss, thr, fds := "-", "-", "-"
				if u := p.Resources; u != nil {
					mib := func(kib int64) string { return fmt.Sprintf("%.0f", float64(kib)/1024) }
					rss = mib(u.ClientRSSKiB) + "/" + mib(u.RelayRSSKiB) + "/" + mib(u.ServerRSSKiB)
					thr = fmt.Sprintf("%d/%d", u.RelayThreads, u.ServerThreads)
					fds = fmt.Sprintf("%d/%d", u.RelayFDs, u.ServerFDs)
				}
				fmt.Fprintf(tw, "%d\t%-*s\t%.0f\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", n, width, name, p.TPS, phrase.Us(p.LatencyUs.P95), ratio, share,
					p.Errors+int64(p.Failed), rss, thr, fds)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

package page

import (
	"fmt"
	"io"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/present/internal/sticky"
	"github.com/hoplat/hoplat/present/phrase"
)

// WriteCompare writes a comparison of runs as one self-contained page: the
// differences between the runs first, then per new run the table of every
// path, "~" where the U test finds no significant change.
func WriteCompare(w io.Writer, c *compare.Comparison) error {
	phrase.FillComparison(c)
	p := page{sticky.New(w)}
	p.head("hoplat: " + c.Old + " against " + joinNew(c.New))
	p.Printf(`<header><h1>Comparing hopbench runs</h1><p>%s</p>`, esc(c.Test))
	p.Printf(`<p>~: no significant difference at α = %g; n: kept rounds old+new. p50: the median of the kept rounds' p50 round trips; added: the runs' added p50.</p></header>`, c.Alpha)
	p.Printf(`<p>noise: %s; a change is called only where p ≤ α and it is larger than the noise.</p>`, esc(c.Noise))
	if len(c.Differences) > 0 {
		p.Printf(`<section id="differences"><h2>The runs differ</h2><ul>`)
		for _, d := range c.Differences {
			p.Printf(`<li class="unstable">%s</li>`, esc(phrase.Difference(d)))
		}
		p.Printf(`</ul></section>`)
	}
	for i, nw := range c.New {
		p.Printf(`<section id="new%d"><h2>old %s, new %s</h2>`, i, esc(c.Old), esc(nw))
		p.Printf(`<div class="scroll"><table><tr><th>path</th><th>p50 old µs</th><th>p50 new µs</th><th>change</th><th>p</th><th>n</th><th>noise</th><th>added old µs</th><th>added new µs</th><th>change</th><th>p</th></tr>`)
		for _, r := range c.Rows {
			if r.NewRun != nw {
				continue
			}
			p.Printf(`<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.3f</td><td>%d+%d</td><td>%s</td>`, esc(compare.Label(r)), phrase.Us(r.OldP50Us), phrase.Us(r.NewP50Us),
				esc(phrase.Delta(r.DeltaPct, r.Significant)), r.PValue, r.NOld, r.NNew, esc(noise(r)))
			if r.OldAddedP50Us == nil {
				p.Printf(`<td></td><td></td><td></td><td></td></tr>`)
				continue
			}
			ch, pv := "", ""
			if r.AddedSignificant != nil {
				ch = phrase.Delta(*r.AddedDeltaPct, *r.AddedSignificant)
				pv = trim3(*r.AddedPValue)
			}
			p.Printf(`<td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>`, phrase.Us(*r.OldAddedP50Us), phrase.Us(*r.NewAddedP50Us), esc(ch), pv)
		}
		p.Printf(`</table></div>`)
		var degraded []string
		for _, r := range c.Rows {
			for _, d := range r.Degraded {
				if r.NewRun == nw {
					degraded = append(degraded, compare.Label(r)+": "+d.Side+": "+d.Why)
				}
			}
		}
		if len(degraded) > 0 {
			p.Printf(`<p>Degraded (no change called there unless --allow-degraded):</p><ul>`)
			for _, d := range degraded {
				p.Printf(`<li class="unstable">%s</li>`, esc(d))
			}
			p.Printf(`</ul>`)
		}
		p.Printf(`</section>`)
	}
	if len(c.Unmatched) > 0 {
		p.Printf(`<section id="unmatched"><h2>Unmatched</h2><ul>`)
		for _, u := range c.Unmatched {
			p.Printf(`<li>%s</li>`, esc(u))
		}
		p.Printf(`</ul></section>`)
	}
	p.foot()
	return p.Err()
}

func joinNew(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// noise is a row's noise_pct, "-" where nothing measured it.
func noise(r compare.Row) string {
	if r.NoiseFrom == compare.Unmeasured {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", r.NoisePct)
}

func trim3(p float64) string { return fmt.Sprintf("%.3f", p) }

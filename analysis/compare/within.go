package compare

import (
	"fmt"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Within sets path b of run against path a of the same run, per regime
// and sweep point, in the table Compare prints: the sharpest comparison,
// since the machine moved under both alike. A path is named as the
// report names it, with or without its regime.
func Within(run Run, a, b string, opt Options) (*Comparison, error) {
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if alpha <= 0 || alpha >= 1 {
		return nil, fmt.Errorf("compare: alpha %v: want between 0 and 1", alpha)
	}
	// Its rows are held to no noise: both sides ran in the same
	// invocation, in interleaved rounds, so the machine's state between
	// invocations is not between them.
	c := &Comparison{Schema: Schema, Old: a, New: []string{b}, Alpha: alpha,
		Method: &NoiseMethod{Within: true}, Within: run.Name, Rows: []Row{}, Differences: []Difference{}}
	c.Partial = append(partialOf("old", a, []Run{run}), partialOf("new", b, []Run{run})...)
	v := varies(run)
	order, by := side{run.Name, []Run{run}}.index(v)
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	var seenA, seenB bool
	for _, kb := range order {
		seenB = seenB || named(kb, b)
	}
	for _, ka := range order {
		if !named(ka, a) {
			continue
		}
		seenA = true
		var kb *key
		for _, k := range order {
			if named(k, b) && k.regime == ka.regime && k.setting == ka.setting {
				kb = &k
				break
			}
		}
		if kb == nil {
			c.Alone = append(c.Alone, Alone{Label: label(ka), Run: b, Beside: true})
			continue
		}
		r := row(ka, by[ka], by[*kb], v, b, th)
		r.Name = a + " vs " + b
		if ka.name != a && ka.regime != "" {
			r.Name += " " + ka.regime
		}
		r.Noise = NoiseSource{Kind: NoiseOneRun}
		if r.OldAddedP50Us != nil {
			zero := 0.0
			r.AddedNoisePct = &zero
		}
		r.Degraded = append(degradedOf("old", by[ka]), degradedOf("new", by[*kb])...)
		hold(&r, opt)
		c.Rows = append(c.Rows, r)
	}
	switch {
	case !seenA || !seenB:
		var missing []string
		for _, n := range []struct {
			name string
			seen bool
		}{{a, seenA}, {b, seenB}} {
			if !n.seen {
				missing = append(missing, fmt.Sprintf("%q", n.name))
			}
		}
		return nil, fmt.Errorf("compare: %s: no path %s", run.Name, strings.Join(missing, " or "))
	case len(c.Rows) == 0:
		return nil, fmt.Errorf("compare: %s: %q and %q share no regime", run.Name, a, b)
	}
	return c, nil
}

// named says whether k is the path name, with or without its regime.
func named(k key, name string) bool {
	return k.name == name || k.regime != "" && k.name == name+" "+k.regime
}

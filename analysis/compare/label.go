package compare

import "fmt"

// Delta is a change as the tables print it: "~" when not significant.
func Delta(pct float64, significant bool) string {
	if !significant {
		return "~"
	}
	return fmt.Sprintf("%+.1f%%", pct)
}

// Label is how a row is named in every form of the comparison: the row's
// path, with its sweep point when the runs sweep. The name carries the
// regime when a run had more than one.
func Label(r Row) string {
	if r.Setting == "" {
		return r.Name
	}
	return r.Name + " (" + r.Setting + ")"
}

// Summary is one line per new run: how many paths moved, up or down, of
// how many compared.
func Summary(c *Comparison) []string {
	var out []string
	for _, nw := range c.New {
		var n, up, down int
		for _, r := range c.Rows {
			if r.NewRun != nw {
				continue
			}
			n++
			if r.Significant && r.DeltaPct > 0 {
				up++
			} else if r.Significant && r.DeltaPct < 0 {
				down++
			}
		}
		out = append(out, fmt.Sprintf("%s against %s: of %d paths, %d slower, %d faster, %d ~", nw, c.Old, n, up, down, n-up-down))
	}
	return out
}

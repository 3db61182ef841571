package stats

// Repeated measurements of one thing disagree in two ways: they scatter,
// or they fall in two groups, as a vCPU's wake-up does when the host
// sometimes has it halted and sometimes polling. A median over two groups
// describes neither, so both hopbench's rounds and the probe's trials
// are checked for them.
const (
	// modeGap and modeRatio say when values fall in two groups: the
	// widest gap between neighbouring values exceeds modeGap times the
	// spread inside either group, and the groups are modeRatio apart.
	modeGap   = 3.0
	modeRatio = 1.25
)

// TwoModes splits sorted values at their widest gap and says whether the
// two sides are groups: the gap is modeGap times wider than either side's
// spread (or than 2% of the median, whichever is more), and the sides
// modeRatio apart. It needs at least two values.
func TwoModes(sorted []float64) (below, above []float64, ok bool) {
	if len(sorted) < 2 {
		return sorted, nil, false
	}
	below, above, gap, inside := WidestGap(sorted)
	inside = max(inside, 0.02*sorted[len(sorted)/2])
	return below, above, gap > modeGap*inside && below[len(below)-1] > 0 && above[0]/below[len(below)-1] > modeRatio
}

// WidestGap splits two or more sorted values at their widest gap (the
// first of equal ones) and returns the gap and the wider of the two sides'
// spreads, the figures a test of two groups weighs against each other.
func WidestGap(sorted []float64) (below, above []float64, gap, inside float64) {
	gi := 0
	for i := 0; i+1 < len(sorted); i++ {
		if d := sorted[i+1] - sorted[i]; d > gap {
			gi, gap = i, d
		}
	}
	below, above = sorted[:gi+1], sorted[gi+1:]
	return below, above, gap, max(below[len(below)-1]-below[0], above[len(above)-1]-above[0])
}

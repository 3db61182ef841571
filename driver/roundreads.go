package driver

// roundReads reads a counter shared by every path of a stage as each round
// begins and as it ends, and keeps what since makes of the two for that
// cell's round alone: the paths' rounds interleave, so a whole-run total
// would mix all paths'. The first failed reading is kept in err and ends
// the reading, so that no path gets a figure with rounds missing.
type roundReads[R, S any] struct {
	read  func() (R, error)
	since func(now, base R) S // a round's sample, marked read
	want  func(cell int) bool // whether a cell is read; nil: every cell
	err   error               // the first failed reading, or why there is none
	ran   [][]S               // by cell, by round; the zero S where not read
	base  R                   // as the round in progress began
}

func newRoundReads[R, S any](cells, rounds int, read func() (R, error), since func(now, base R) S) roundReads[R, S] {
	r := roundReads[R, S]{read: read, since: since, ran: make([][]S, cells)}
	for i := range r.ran {
		r.ran[i] = make([]S, rounds)
	}
	return r
}

func (r *roundReads[R, S]) reads(cell int) bool {
	return r.err == nil && (r.want == nil || r.want(cell))
}

// begin reads the counter before cell's round.
func (r *roundReads[R, S]) begin(cell int) {
	var zero R
	r.base = zero
	if !r.reads(cell) {
		return
	}
	r.base, r.err = r.read()
}

// end reads it again after the round and keeps the sample.
func (r *roundReads[R, S]) end(cell, round int) {
	if !r.reads(cell) {
		return
	}
	now, err := r.read()
	if err != nil {
		r.err = err
		return
	}
	r.ran[cell][round] = r.since(now, r.base)
}

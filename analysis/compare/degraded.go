package compare

// Degraded is a side's trouble on one row: failed rounds, errors, an
// unstable path or a run stopped before its end, which make its figures a
// different experiment's.
type Degraded struct {
	Side string `json:"side"` // old or new
	Why  string `json:"why"`
	// Trouble is Why as its kind and figures, which package present
	// says in it.
	Trouble Trouble `json:"-"`
}

// Trouble is one thing that went wrong on a side's entry for a path.
type Trouble struct {
	// Run is the entry's run where the side has several; "" otherwise.
	Run  string
	Kind TroubleKind
	N    int // failed rounds (TroubleFailed) or errors (TroubleErrors)
	// Round is the first failed round's index, where a round says it
	// failed (InRound); Text is then that round's failure.
	Round   int
	InRound bool
	// Text is what the report said: why the run stopped
	// (TroublePartial), the first failed round's failure, or why the
	// path is unstable ("" where the report said nothing).
	Text string
}

// A TroubleKind is what went wrong on a side.
type TroubleKind int

// The troubles that degrade a side (troubles).
const (
	TroublePartial  TroubleKind = iota + 1 // the run was stopped before its end
	TroubleFailed                          // N rounds failed
	TroubleErrors                          // N errors
	TroubleUnstable                        // the path's rounds disagree
)

// degradedOf names what went wrong on the side's entries for one path,
// each trouble with its run where the side has several.
func degradedOf(sideName string, es []entry) []Degraded {
	var out []Degraded
	for _, e := range es {
		for _, t := range troubles(e) {
			if len(es) > 1 {
				t.Run = e.run
			}
			out = append(out, Degraded{Side: sideName, Trouble: t})
		}
	}
	return out
}

func troubles(e entry) []Trouble {
	p := e.p
	var out []Trouble
	if e.partial != "" {
		// Its rounds are fewer than asked, and not a sample of the
		// whole run's time: the machine's later states are missing.
		out = append(out, Trouble{Kind: TroublePartial, Text: e.partial})
	}
	failed := p.Failed
	var n int
	first := Trouble{Kind: TroubleFailed}
	for _, r := range p.Rounds {
		if r.Failed != "" {
			n++
			if !first.InRound {
				first.Round, first.InRound, first.Text = r.Index, true, r.Failed
			}
		}
	}
	if first.N = max(failed, n); first.N > 0 {
		out = append(out, first)
	}
	if p.Errors > 0 {
		out = append(out, Trouble{Kind: TroubleErrors, N: int(p.Errors)})
	}
	if !p.Stable {
		out = append(out, Trouble{Kind: TroubleUnstable, Text: p.UnstableReason})
	}
	return out
}

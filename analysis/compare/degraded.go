package compare

import (
	"fmt"
	"strings"
)

// Degraded is a side's trouble on one row: failed rounds, errors, an
// unstable path or a run stopped before its end, which make its figures a
// different experiment's.
type Degraded struct {
	Side string `json:"side"` // old or new
	Why  string `json:"why"`
}

// degradedOf names what went wrong on the side's entries for one path,
// each reason prefixed with its run where the side has several.
func degradedOf(sideName string, es []entry) []Degraded {
	var out []Degraded
	for _, e := range es {
		pre := ""
		if len(es) > 1 {
			pre = e.run + ": "
		}
		for _, why := range troubles(e) {
			out = append(out, Degraded{Side: sideName, Why: pre + why})
		}
	}
	return out
}

func troubles(e entry) []string {
	p := e.p
	var out []string
	if e.partial != "" {
		// Its rounds are fewer than asked, and not a sample of the
		// whole run's time: the machine's later states are missing.
		out = append(out, "partial run: "+e.partial)
	}
	failed, first, at := p.Failed, "", -1
	var n int
	for _, r := range p.Rounds {
		if r.Failed != "" {
			n++
			if at < 0 {
				at, first = r.Index, r.Failed
			}
		}
	}
	failed = max(failed, n)
	if failed > 0 {
		s := fmt.Sprintf("%d failed round%s", failed, plural(failed))
		if at >= 0 {
			s += fmt.Sprintf(" (round %d: %s)", at, firstLine(first))
		}
		out = append(out, s)
	}
	if p.Errors > 0 {
		out = append(out, fmt.Sprintf("%d error%s", p.Errors, plural(int(p.Errors))))
	}
	if !p.Stable {
		s := "unstable"
		if p.UnstableReason != "" {
			s += ": " + p.UnstableReason
		}
		out = append(out, s)
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// firstLine is an error's first line, at most 80 characters: a failed
// round's text can hold a peer's whole stderr.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

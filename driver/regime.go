package driver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/roles"
)

// Placement regimes: where a run puts its components decides its figures
// more than anything else on a small machine. On one CPU a hop is kernel
// path and context switches; across CPUs each message also wakes another
// CPU, which on a guest whose idle vCPU halted goes through the
// hypervisor. A run reports which one it measured, and by default both.
const (
	RegimePacked = "packed" // client, relays and server on one CPU
	RegimeSpread = "spread" // each component on its own CPU as far as there are CPUs
	RegimeCustom = "custom" // a --placement spec
	RegimeNone   = "none"   // unpinned: the scheduler places, and may move, every process
)

// Regime is one placement a run measures every path under.
type Regime struct {
	Name      string
	Placement affinity.Placement // zero for RegimeNone
}

// components are the kinds --placement names, in path order.
var components = []string{roles.Client, roles.Relay, roles.Server}

// DefaultRegimes is what a run measures unless told otherwise: packed and
// spread over the CPUs this process may use, or packed alone when it may
// use one.
func DefaultRegimes() ([]Regime, error) {
	cpus, err := affinity.ThreadCPUs()
	if err != nil {
		if cpus, err = affinity.OnlineCPUs(); err != nil {
			return nil, fmt.Errorf("driver: default regimes: %w", err)
		}
	}
	packed, err := affinity.ParsePlacement("same-core", cpus)
	if err != nil {
		return nil, fmt.Errorf("driver: default regimes: %w", err)
	}
	out := []Regime{{Name: RegimePacked, Placement: packed}}
	if cpus.Len() > 1 {
		spread, err := affinity.ParsePlacement("spread", cpus)
		if err != nil {
			return nil, fmt.Errorf("driver: default regimes: %w", err)
		}
		out = append(out, Regime{Name: RegimeSpread, Placement: spread})
	}
	return out, nil
}

// RegimeOf names the regime a --placement spec asks for.
func RegimeOf(p affinity.Placement) Regime {
	switch p.String() {
	case "":
		return Regime{Name: RegimeNone}
	case "same-core":
		return Regime{Name: RegimePacked, Placement: p}
	case "spread":
		return Regime{Name: RegimeSpread, Placement: p}
	}
	return Regime{Name: RegimeCustom, Placement: p}
}

// Places is where r puts the components, which package present says in
// the regime's note (who shares a CPU with whom).
func (r Regime) Places() *hop.RegimePlaces { return r.places(components) }

// places is Places over the components cs alone: a server that hopbench
// did not start is not the regime's to place, and its place is said apart.
func (r Regime) places(cs []string) *hop.RegimePlaces {
	if r.Name == RegimeNone {
		return &hop.RegimePlaces{Unpinned: true}
	}
	out := &hop.RegimePlaces{}
	for _, c := range cs {
		var list string
		if cpus, ok := r.Placement.For(c); ok {
			list = cpus.String()
		}
		out.Components = append(out.Components, hop.ComponentCPUs{Component: c, CPUs: list})
	}
	return out
}

// regimes is what the run measures: Regimes when set, else the regime
// Placement asks for, else DefaultRegimes.
func (c Config) regimes() ([]Regime, error) {
	if len(c.Regimes) > 0 {
		return c.Regimes, nil
	}
	if c.Placement.String() != "" {
		return []Regime{RegimeOf(c.Placement)}, nil
	}
	return DefaultRegimes()
}

// joinDistinct joins the distinct non-empty values in first-seen order
// with "|": a component that ran on different CPUs in different rounds
// shows each.
func joinDistinct(vals []string) string {
	var out []string
	for _, v := range vals {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return strings.Join(out, "|")
}

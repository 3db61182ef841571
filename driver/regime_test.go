package driver

import (
	"slices"
	"testing"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
)

func TestRegimePlaces(t *testing.T) {
	two := affinity.NewCPUSet(0, 1)
	four := affinity.NewCPUSet(0, 1, 2, 3)
	parse := func(spec string, online affinity.CPUSet) affinity.Placement {
		p, err := affinity.ParsePlacement(spec, online)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cpus := func(c, r, s string) []hop.ComponentCPUs {
		return []hop.ComponentCPUs{{Component: "client", CPUs: c}, {Component: "relay", CPUs: r}, {Component: "server", CPUs: s}}
	}
	for _, c := range []struct {
		regime Regime
		name   string
		places hop.RegimePlaces
	}{
		{RegimeOf(parse("same-core", two)), RegimePacked, hop.RegimePlaces{Components: cpus("0", "0", "0")}},
		{RegimeOf(parse("spread", two)), RegimeSpread, hop.RegimePlaces{Components: cpus("0", "1", "0")}},
		{RegimeOf(parse("spread", four)), RegimeSpread, hop.RegimePlaces{Components: cpus("0", "1", "2")}},
		{RegimeOf(parse("client=0 relay=1", two)), RegimeCustom, hop.RegimePlaces{Components: cpus("0", "1", "")}},
		{RegimeOf(affinity.Placement{}), RegimeNone, hop.RegimePlaces{Unpinned: true}},
	} {
		if got := c.regime.Places(); c.regime.Name != c.name || got.Unpinned != c.places.Unpinned || !slices.Equal(got.Components, c.places.Components) {
			t.Errorf("%s %+v, want %s %+v", c.regime.Name, got, c.name, c.places)
		}
	}
}

func TestConfigRegimes(t *testing.T) {
	var c Config
	got, err := c.regimes()
	if err != nil {
		t.Fatal(err)
	}
	cpus, _ := affinity.ThreadCPUs()
	if want := min(2, cpus.Len()); len(got) != want || got[0].Name != RegimePacked {
		t.Errorf("default regimes %+v, want packed (and spread with two CPUs)", got)
	}
	c.Placement, _ = affinity.ParsePlacement("spread", affinity.NewCPUSet(0))
	if got, _ := c.regimes(); len(got) != 1 || got[0].Name != RegimeSpread {
		t.Errorf("--placement spread: %+v", got)
	}
	c.Regimes = []Regime{{Name: RegimeNone}}
	if got, _ := c.regimes(); len(got) != 1 || got[0].Name != RegimeNone {
		t.Errorf("--placement none: %+v", got)
	}
}

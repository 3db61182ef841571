package driver

import (
	"testing"

	"github.com/hoplat/hoplat/affinity"
)

func TestRegimeNotes(t *testing.T) {
	two := affinity.NewCPUSet(0, 1)
	four := affinity.NewCPUSet(0, 1, 2, 3)
	parse := func(spec string, online affinity.CPUSet) affinity.Placement {
		p, err := affinity.ParsePlacement(spec, online)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		regime Regime
		name   string
		note   string
	}{
		{RegimeOf(parse("same-core", two)), RegimePacked, "client, relay and server on CPU 0"},
		{RegimeOf(parse("spread", two)), RegimeSpread, "client=0 relay=1 server=0 (client and server share CPU 0: fewer CPUs than components)"},
		{RegimeOf(parse("spread", four)), RegimeSpread, "client=0 relay=1 server=2"},
		{RegimeOf(parse("client=0 relay=1", two)), RegimeCustom, "client=0 relay=1 server=any CPU"},
		{RegimeOf(affinity.Placement{}), RegimeNone, "unpinned: the scheduler places every process, and may place it differently from one round to the next"},
	} {
		if c.regime.Name != c.name || c.regime.Note() != c.note {
			t.Errorf("%s %q, want %s %q", c.regime.Name, c.regime.Note(), c.name, c.note)
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

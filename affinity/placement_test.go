package affinity

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestParsePlacement(t *testing.T) {
	online := NewCPUSet(0, 1, 2, 3)
	tests := []struct {
		spec string
		want map[string]string // component -> CPU list; "" = not placed
		str  string
	}{
		{"client=0 relay=1 server=1", map[string]string{"client": "0", "relay": "1", "server": "1", "relay2": ""}, "client=0 relay=1 server=1"},
		{"client=0,relay=1,server=1", map[string]string{"client": "0", "relay": "1", "server": "1"}, "client=0 relay=1 server=1"},
		{" server=2-3,1 client=0;2 ", map[string]string{"server": "1-3", "client": "0,2", "relay": ""}, "server=1-3 client=0,2"},
		{"relay2=all", map[string]string{"relay2": "0-3", "relay": ""}, "relay2=0-3"},
		{"same-core", map[string]string{"client": "0", "relay": "0", "server": "0", "relay2": "0"}, "same-core"},
	}
	for _, tt := range tests {
		p, err := ParsePlacement(tt.spec, online)
		if err != nil {
			t.Errorf("ParsePlacement(%q): %v", tt.spec, err)
			continue
		}
		for comp, want := range tt.want {
			got, ok := p.For(comp)
			if got.String() != want || ok != (want != "") {
				t.Errorf("ParsePlacement(%q).For(%q) = %q, %v; want %q", tt.spec, comp, got, ok, want)
			}
		}
		if p.String() != tt.str {
			t.Errorf("ParsePlacement(%q).String() = %q, want %q", tt.spec, p, tt.str)
		}
		back, err := ParsePlacement(p.String(), online)
		if err != nil || back.String() != p.String() {
			t.Errorf("round trip of %q via %q = %q, %v", tt.spec, p, back, err)
		}
	}
	var zero Placement
	if cpus, ok := zero.For("client"); ok || cpus.Len() != 0 {
		t.Errorf("zero Placement places client on %v", cpus)
	}
}

func TestPlacementSpread(t *testing.T) {
	p, err := ParsePlacement("spread", NewCPUSet(2, 5, 7))
	if err != nil {
		t.Fatal(err)
	}
	// Components beyond the three known ones take the next slots in the
	// order they are first asked for, wherever they are asked from.
	for _, step := range []struct {
		comp string
		cpu  int
	}{{"relay2", 2}, {"server", 7}, {"relay3", 5}, {"client", 2}, {"relay", 5}, {"relay2", 2}, {"relay4", 7}} {
		cpus, ok := p.For(step.comp)
		if !ok || !cpus.Equal(NewCPUSet(step.cpu)) {
			t.Errorf("For(%q) = %v, %v; want %d", step.comp, cpus, ok, step.cpu)
		}
	}
	copied := p
	if cpus, _ := copied.For("relay3"); !cpus.Equal(NewCPUSet(5)) {
		t.Errorf("a copy forgot relay3's slot: %v", cpus)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { p.For("relay9") })
	}
	wg.Wait()
	// relay9 took slot 6 once, however many asked at once: relay10 gets 7.
	if cpus, _ := p.For("relay10"); !cpus.Equal(NewCPUSet(5)) {
		t.Errorf("relay10 after relay9 = %v, want 5", cpus)
	}
}

func TestParsePlacementErrors(t *testing.T) {
	online := NewCPUSet(0, 1)
	tests := []struct{ spec, msg string }{
		{"", "empty spec"},
		{" , ,", "empty spec"},
		{"spred", `unknown preset "spred" (want same-core, spread or component=LIST)`},
		{"client 0", `token "client": want component=LIST`},
		{"Client=0", `token "Client=0": bad component name "Client"`},
		{"2relay=0", `bad component name "2relay"`},
		{"=0", `bad component name ""`},
		{"client=0 client=1", `token "client=1": component "client" given twice`},
		{"client=0 relay=5", `relay=5: CPU 5 not online (online 0-1)`},
		{"client=0 relay=", `relay=: empty list`},
		{"client=0,x", `client=0,x: bad CPU "x"`},
	}
	for _, tt := range tests {
		_, err := ParsePlacement(tt.spec, online)
		if err == nil {
			t.Errorf("ParsePlacement(%q) succeeded, want error %q", tt.spec, tt.msg)
			continue
		}
		if !strings.HasPrefix(err.Error(), "affinity: parse placement ") || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParsePlacement(%q) error %q, want it to contain %q", tt.spec, err, tt.msg)
		}
	}
	if _, err := ParsePlacement("client=1", NewCPUSet(0)); !errors.Is(err, ErrNotOnline) {
		t.Errorf("placing on an offline CPU: error %v, want ErrNotOnline", err)
	}
	if _, err := ParsePlacement("spread", CPUSet{}); err == nil {
		t.Error("spread over no online CPU succeeded")
	}
}

func FuzzParsePlacement(f *testing.F) {
	for _, s := range []string{"client=0 relay=1 server=1", "client=0,relay=1,3", "spread", "same-core", "relay2=all", "a=0;1 b=1-1", "x", "client=0 client=0", "=", "a=,"} {
		f.Add(s)
	}
	online := NewCPUSet(0, 1, 2, 3, 8)
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := ParsePlacement(spec, online)
		if err != nil {
			return
		}
		back, err := ParsePlacement(p.String(), online)
		if err != nil || back.String() != p.String() {
			t.Fatalf("ParsePlacement(%q) = %q, which reads back as %q, %v", spec, p, back, err)
		}
		for _, name := range p.names {
			cpus, ok := p.For(name)
			again, _ := back.For(name)
			if !ok || cpus.Len() == 0 || !cpus.Equal(again) {
				t.Fatalf("ParsePlacement(%q).For(%q) = %v, %v; after round trip %v", spec, name, cpus, ok, again)
			}
		}
	})
}

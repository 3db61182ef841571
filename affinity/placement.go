package affinity

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hoplat/hoplat/roles"
)

// Placement says which CPUs each component of a measured path (client,
// relay, server, relay2, ...) runs on. The zero value places nothing: For
// reports false for every component. A Placement is safe for concurrent use,
// and copies share the assignments made under the spread preset.
type Placement struct {
	preset string // "same-core" or "spread"; "" for a component=LIST spec
	online CPUSet
	cpus   map[string]CPUSet
	names  []string // the spec's order, for String
	spread *spreadSlots
}

// spreadSlots numbers components for the spread preset: client, relay and
// server first, then others in the order they are first asked for.
type spreadSlots struct {
	mu    sync.Mutex
	slots map[string]int
}

// ParsePlacement parses a placement spec against the online CPUs. A spec is
// a preset or components with CPU lists:
//
//	same-core               every component on the first online CPU
//	spread                  one CPU each, round-robin over the online CPUs in
//	                        the order client, relay, server, then any other
//	                        component in the order For is first asked for it
//	client=0 relay=1-2;4    a CPU list per component, separated by spaces or
//	client=0,relay=1,3      commas; a token without "=" continues the list
//	                        before it, so "relay=1,3" keeps both CPUs
//
// Component names are a lower-case letter then letters or digits (relay2).
func ParsePlacement(spec string, online CPUSet) (Placement, error) {
	p, err := parsePlacement(strings.TrimSpace(spec), online)
	if err != nil {
		return Placement{}, fmt.Errorf("affinity: parse placement %q: %w", spec, err)
	}
	return p, nil
}

func parsePlacement(spec string, online CPUSet) (Placement, error) {
	if online.Len() == 0 {
		return Placement{}, errors.New("no CPU online")
	}
	switch spec {
	case "":
		return Placement{}, errors.New("empty spec")
	case "same-core":
		return Placement{preset: spec, online: online}, nil
	case "spread":
		slots := map[string]int{roles.Client: 0, roles.Relay: 1, roles.Server: 2}
		return Placement{preset: spec, online: online, spread: &spreadSlots{slots: slots}}, nil
	}
	tokens := strings.FieldsFunc(spec, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	if len(tokens) == 0 {
		return Placement{}, errors.New("empty spec")
	}
	var lists []string // raw CPU list per name, in spec order
	var names []string
	for _, tok := range tokens {
		name, list, ok := strings.Cut(tok, "=")
		if !ok {
			if len(names) == 0 {
				if len(tokens) == 1 {
					return Placement{}, fmt.Errorf("unknown preset %q (want same-core, spread or component=LIST)", tok)
				}
				return Placement{}, fmt.Errorf("token %q: want component=LIST", tok)
			}
			lists[len(lists)-1] += "," + tok
			continue
		}
		if !validName(name) {
			return Placement{}, fmt.Errorf("token %q: bad component name %q (want a-z then a-z or 0-9)", tok, name)
		}
		for _, seen := range names {
			if seen == name {
				return Placement{}, fmt.Errorf("token %q: component %q given twice", tok, name)
			}
		}
		names = append(names, name)
		lists = append(lists, list)
	}
	p := Placement{online: online, cpus: make(map[string]CPUSet, len(names)), names: names}
	for i, name := range names {
		cpus, err := parseList(lists[i], &online)
		if err != nil {
			return Placement{}, fmt.Errorf("%s=%s: %w", name, lists[i], err)
		}
		p.cpus[name] = cpus
	}
	return p, nil
}

func validName(name string) bool {
	for i, r := range name {
		letter := r >= 'a' && r <= 'z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return name != ""
}

// For returns the CPUs of a component. Under a preset every component has
// CPUs; under a component=LIST spec only the components it names do.
func (p Placement) For(component string) (CPUSet, bool) {
	switch p.preset {
	case "same-core":
		return NewCPUSet(p.online.cpus[0]), true
	case "spread":
		slot := p.spread.slot(component)
		return NewCPUSet(p.online.cpus[slot%len(p.online.cpus)]), true
	}
	cpus, ok := p.cpus[component]
	return cpus, ok
}

func (s *spreadSlots) slot(component string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.slots[component]
	if !ok {
		n = len(s.slots)
		s.slots[component] = n
	}
	return n
}

// String returns the spec in the form ParsePlacement reads: the preset name
// or "client=0 relay=1-2". The zero Placement is "".
func (p Placement) String() string {
	if p.preset != "" {
		return p.preset
	}
	var b strings.Builder
	for _, name := range p.names {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name + "=" + p.cpus[name].String())
	}
	return b.String()
}

// MarshalText writes the String form, for reports.
func (p Placement) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

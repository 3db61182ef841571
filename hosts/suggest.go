package hosts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/internal/spell"
)

// knownKey reports whether k is a key of the file: a setting's, one with no
// flag, a component's host or CPUs, or a host's declaration.
func (p *parser) knownKey(k string) bool {
	if slices.Contains(fileKeys, k) {
		return true
	}
	for _, c := range Components {
		up := strings.ToUpper(c)
		if k == up+"_HOST" || k == up+"_CPUS" {
			return true
		}
	}
	if name, ok := strings.CutPrefix(k, "HOST_"); ok {
		name, _ = strings.CutSuffix(name, "_VIA")
		return validHostName(strings.ToLower(name))
	}
	return p.s.known(k)
}

// suggest names a known key close to an unknown one: the same words in
// another order or one edit away covers most typos of these short keys.
func (p *parser) suggest(k string) string {
	if name, ok := strings.CutPrefix(k, "HOST_"); ok {
		return fmt.Sprintf(" (HOST_NAME declares a host: %q is not a host name, want a letter then up to 11 letters or digits)", strings.ToLower(name))
	}
	if len(k) > 64 {
		return "" // no key is near so long a word; spare the quadratic measure
	}
	known := slices.Clone(fileKeys)
	if p.s != nil {
		known = append(known, p.s.Keys...)
		for a := range p.s.Aliases {
			known = append(known, a)
		}
	}
	for _, c := range Components {
		known = append(known, strings.ToUpper(c)+"_HOST", strings.ToUpper(c)+"_CPUS")
	}
	for a := range aliases {
		known = append(known, a)
	}
	slices.Sort(known)
	for _, c := range known {
		if spell.Distance(k, c) <= 2 {
			return fmt.Sprintf(" (did you mean %s?)", c)
		}
	}
	return ""
}

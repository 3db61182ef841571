package settings

import (
	"strings"

	"github.com/hoplat/hoplat/hosts"
)

// Args renders the settings the file gives as hopbench's flags, in
// FlagKeys' terms, so that a caller can parse them ahead of the user's own
// (pflag keeps the last value given for a flag): the flags on the command
// line then override the file. The <COMPONENT>_CPUS of components on this
// machine (local and netns hosts share its CPUs) become --placement; those
// of components on ssh hosts do not, since --placement is read against this
// machine's CPUs: they are the caller's to pass as --cpus there (hosts.TopologyFile.Place).
func (t *File) Args() []string {
	var a []string
	for _, s := range keyTable {
		switch {
		case s.values != nil:
			for _, v := range s.values(t) {
				a = append(a, "--"+s.flag+"="+v)
			}
		case t.Has(s.key) && s.value != nil:
			a = append(a, "--"+s.flag+"="+s.value(t))
		case s.unset != nil:
			if v, ok := s.unset(t); ok {
				a = append(a, "--"+s.flag+"="+v)
			}
		}
	}
	return a
}

// cpusPlacement is --placement from the <COMPONENT>_CPUS of the components
// on this machine, when the file sets no PLACEMENT.
func cpusPlacement(t *File) (string, bool) {
	var spec []string
	for _, c := range []string{hosts.Client, hosts.Relay, hosts.Server} {
		if p := t.Place[c]; p.CPUs != "" && t.HostOf(c).Kind != hosts.SSH {
			spec = append(spec, c+"="+p.CPUs)
		}
	}
	return strings.Join(spec, " "), len(spec) > 0
}

package hosts

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/affinity"
)

func validHostName(s string) bool {
	if s == "" || len(s) > 12 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ParseHost reads a host's spec: local, netns:NAME or
// ssh://user@host[:port] (an IPv6 host in brackets).
func ParseHost(name, spec string) (Host, error) {
	h := Host{Name: name, Spec: spec}
	switch {
	case spec == "local":
		h.Kind = Local
	case strings.HasPrefix(spec, "netns:"):
		h.Kind = NetNS
		h.Namespace = strings.TrimPrefix(spec, "netns:")
		if !validHostName(h.Namespace) {
			return Host{}, fmt.Errorf("%q: namespace name %q: want a letter then up to 11 lower-case letters or digits", spec, h.Namespace)
		}
	case strings.HasPrefix(spec, "ssh://"):
		h.Kind = SSH
		u, err := url.Parse(spec)
		if err != nil {
			return Host{}, fmt.Errorf("%q: %w", spec, err)
		}
		if u.User == nil || u.User.Username() == "" {
			return Host{}, fmt.Errorf("%q: want ssh://user@host[:port]", spec)
		}
		if _, has := u.User.Password(); has {
			return Host{}, fmt.Errorf("%q: no passwords in the file: hoplat uses your ssh keys (BatchMode)", spec)
		}
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
			return Host{}, fmt.Errorf("%q: want ssh://user@host[:port] and nothing after it", spec)
		}
		h.User, h.Addr = u.User.Username(), u.Hostname()
		if strings.HasPrefix(h.User, "-") || strings.HasPrefix(h.Addr, "-") || strings.ContainsAny(h.User+h.Addr, " \t'\"\\;$`") {
			return Host{}, fmt.Errorf("%q: user or host with characters ssh would read as options or shell", spec)
		}
		if h.Addr == "" {
			return Host{}, fmt.Errorf("%q: no host", spec)
		}
		if ps := u.Port(); ps != "" {
			port, err := strconv.Atoi(ps)
			if err != nil || port < 1 || port > 65535 {
				return Host{}, fmt.Errorf("%q: port %q: want 1 to 65535", spec, ps)
			}
			h.Port = port
		}
	default:
		return Host{}, fmt.Errorf("%q: want local, netns:NAME or ssh://user@host[:port]", spec)
	}
	return h, nil
}

// Target is an ssh host's destination as ssh(1) takes it: user@host.
func (h Host) Target() string {
	return h.User + "@" + h.Addr
}

// String is the host as reports name it: db (netns:db).
func (h Host) String() string { return h.Name + " (" + h.Spec + ")" }

func (p *parser) hosts() error {
	t := p.t
	for _, key := range p.keys {
		name, ok := strings.CutPrefix(key, "HOST_")
		if !ok || strings.HasSuffix(name, "_VIA") {
			continue
		}
		h, err := ParseHost(strings.ToLower(name), p.raw[key])
		if err != nil {
			return p.err(key, "%v", err)
		}
		if err := p.addHost(key, h); err != nil {
			return err
		}
	}
	for _, key := range p.keys {
		name, ok := strings.CutPrefix(key, "HOST_")
		if !ok {
			continue
		}
		name, ok = strings.CutSuffix(name, "_VIA")
		if !ok {
			continue
		}
		i := t.host(strings.ToLower(name))
		if i < 0 {
			return p.err(key, "no host %s (declare it with HOST_%s)", strings.ToLower(name), name)
		}
		via := p.raw[key]
		j := t.host(via)
		switch {
		case t.Hosts[i].Kind != SSH:
			return p.err(key, "host %s is %s: only an ssh host is reached through another", t.Hosts[i].Name, t.Hosts[i].Kind)
		case j < 0:
			return p.err(key, "%q: no such host", via)
		case t.Hosts[j].Kind != NetNS:
			return p.err(key, "%q is %s: an ssh client runs inside a netns host, or on this machine without _VIA", via, t.Hosts[j].Kind)
		}
		t.Hosts[i].Via = via
	}
	return nil
}

func (p *parser) addHost(key string, h Host) error {
	t := p.t
	for _, o := range t.Hosts {
		switch {
		case o.Name == h.Name:
			return p.err(key, "host %s declared twice", h.Name)
		case h.Kind == NetNS && o.Kind == NetNS && o.Namespace == h.Namespace:
			return p.err(key, "namespace %s is host %s already", h.Namespace, o.Name)
		case h.Kind == Local && o.Kind == Local:
			return p.err(key, "host %s is this machine, as %s is already", h.Name, o.Name)
		}
	}
	t.Hosts = append(t.Hosts, h)
	return nil
}

// host is the index of the host named name, or -1.
func (t *TopologyFile) host(name string) int {
	return slices.IndexFunc(t.Hosts, func(h Host) bool { return h.Name == name })
}

// Host returns the host named name.
func (t *TopologyFile) Host(name string) (Host, bool) {
	if i := t.host(name); i >= 0 {
		return t.Hosts[i], true
	}
	return Host{}, false
}

// HostOf returns the host component runs on.
func (t *TopologyFile) HostOf(component string) Host {
	h, _ := t.Host(t.Place[component].Host)
	return h
}

// network is which set of addresses a host reaches: this machine's own
// ("", with every ssh host reached from here) or the namespaces'.
func (t *TopologyFile) network(h Host) string {
	switch h.Kind {
	case NetNS:
		return "netns"
	case SSH:
		if h.Via != "" {
			return "netns"
		}
	}
	return ""
}

func (p *parser) places() error {
	t := p.t
	t.Place = map[string]Place{}
	defaults := map[string]string{Relay: Client, Server: Client, Backend: Server}
	for _, c := range Components {
		up := strings.ToUpper(c)
		pl := Place{}
		key := up + "_HOST"
		if v, ok := p.raw[key]; ok {
			names := []string{v}
			if strings.Contains(v, ";") || strings.Contains(v, ",") {
				if c != Server {
					return p.err(key, "%q: one host per component (only SERVER_HOST lists several)", v)
				}
				var err error
				if names, err = p.list(key, v); err != nil {
					return err
				}
			}
			for i, v := range names {
				if t.host(v) < 0 {
					if !strings.Contains(v, ":") && v != "local" {
						return p.err(key, "%q: no such host (declare it with HOST_%s=SPEC, or give a spec here)", v, strings.ToUpper(v))
					}
					// An inline spec, as autobench's SERVER_HOST gives an
					// address: it declares a host, or names one already
					// declared with the same spec.
					name := c
					if i > 0 {
						name += strconv.Itoa(i + 1)
					}
					h, err := p.inlineHost(name, v)
					if err != nil {
						return p.err(key, "%v", err)
					}
					names[i] = h
				}
				if slices.Contains(names[:i], names[i]) {
					return p.err(key, "%q: host %s listed twice", v, names[i])
				}
			}
			if c == Server {
				t.Servers = names
			}
			pl.Host = names[0]
		} else if d, ok := defaults[c]; ok {
			pl.Host = t.Place[d].Host
		} else if len(t.Hosts) > 0 {
			pl.Host = t.Hosts[0].Name
		} else {
			if err := p.addHost(key, Host{Name: "local", Kind: Local, Spec: "local"}); err != nil {
				return err
			}
			pl.Host = "local"
		}
		key = up + "_CPUS"
		if v, ok := p.raw[key]; ok {
			if _, err := affinity.ParseListFor(v, anyCPU); err != nil {
				return p.err(key, "%v", err)
			}
			pl.CPUs = v
		}
		t.Place[c] = pl
	}
	if len(t.Servers) == 0 {
		t.Servers = []string{t.Place[Server].Host}
	}
	for _, s := range t.Servers[1:] {
		if a, b := t.HostOf(Client), t.Hosts[t.host(s)]; t.network(a) != t.network(b) {
			return p.err("SERVER_HOST", "client on %s cannot reach server %s: hoplat never adds addresses to this machine's own network, so netns hosts reach only each other (and ssh hosts with _VIA)", a, b)
		}
	}
	// Every component must reach the next one's address.
	first := Client
	for _, c := range Components[1:] {
		a, b := t.HostOf(first), t.HostOf(c)
		if t.network(a) != t.network(b) {
			key := strings.ToUpper(c) + "_HOST"
			if !t.Has(key) {
				key = strings.ToUpper(first) + "_HOST"
			}
			return p.err(key, "%s on %s cannot reach %s on %s: hoplat never adds addresses to this machine's own network, so netns hosts reach only each other (and ssh hosts with _VIA)", first, a, c, b)
		}
	}
	return nil
}

// anyCPU accepts every CPU number a kernel supports (CONFIG_NR_CPUS is at
// most 8192): the file is checked for syntax, not against this machine.
var anyCPU = func() affinity.CPUSet {
	cpus := make([]int, 8192)
	for i := range cpus {
		cpus[i] = i
	}
	return affinity.NewCPUSet(cpus...)
}()

func (p *parser) inlineHost(name, spec string) (string, error) {
	for _, h := range p.t.Hosts {
		if h.Spec == spec {
			return h.Name, nil
		}
	}
	h, err := ParseHost(name, spec)
	if err != nil {
		return "", err
	}
	switch h.Kind {
	case NetNS:
		h.Name = h.Namespace
	case Local:
		h.Name = "local"
	}
	if i := p.t.host(h.Name); i >= 0 {
		return "", fmt.Errorf("%q: host %s is %s already", spec, h.Name, p.t.Hosts[i].Spec)
	}
	p.t.Hosts = append(p.t.Hosts, h)
	return h.Name, nil
}

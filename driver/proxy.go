package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// Proxy is a proxy the user has, put on a path of its own beside hoplat's
// relays, socat and HAProxy: MaxScale, ProxySQL, mysql-proxy, an nginx
// stream block. Either it runs already, pointed at the backend, and Addr is
// where it listens (dialed as a relay's address is), or hopbench starts it
// for each topology from Command, a template whose placeholders name the
// address it is to listen on and the backend it is to relay to:
//
//	{listen}         127.0.0.1:PORT, a free port chosen for it
//	{listen_host}    127.0.0.1
//	{listen_port}    PORT
//	{upstream}       the backend's TCP address, HOST:PORT (a cluster's first server)
//	{upstream_host}  HOST
//	{upstream_port}  PORT
//	{dir}            a directory of its own for pid files and logs, removed at the end
//	{config:PATH}    the file at PATH with the placeholders above substituted,
//	                 written into {dir}; the word becomes the written file's path
//
// A started proxy is placed on the relay's CPUs, pinned from its fork (its
// workers inherit the mask), followed by the tracer with the children it
// forks, measured in CPU time per request, and stopped with its process
// group, as socat and HAProxy are. It must run in the foreground (nginx:
// -g 'daemon off;'). One that exits before it listens, or does not listen
// within ReadyTimeout, fails the run with the last lines of its stderr.
type Proxy struct {
	Name    string        // the path's relay name: a lower-case word that is not one of hop.Relays
	Addr    *sockets.Addr // running already; nil for a template
	Command []string      // the template's words; nil for an address
	Configs map[string]string
	Spec    string // as given, after NAME=
}

// proxyName is what a proxy may be called: short, lower case, and so a
// path name ("nginx tcp->tcp"), a JSON string and a PROXY_<NAME> key alike.
var proxyName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,23}$`)

// placeholder matches what a template may mean as a placeholder, known
// or not: a word in braces, or {config:PATH}. A config's own braces (an
// nginx block, "events { … }") hold blanks and are left alone.
var placeholder = regexp.MustCompile(`\{[a-z_]+(:[^{}\s]+)?\}`)

var proxyKeys = []string{"{listen}", "{listen_host}", "{listen_port}", "{upstream}", "{upstream_host}", "{upstream_port}", "{dir}"}

// ParseProxy reads --proxy NAME=ADDR or NAME=COMMAND: an address (socat or
// short syntax, one word, no placeholder) names a proxy running already; a
// command is split into words as a shell would (single and double quotes,
// backslash) and must say where to listen and what to relay to, in its
// words or in a {config:PATH} file, which is read now.
func ParseProxy(s string) (Proxy, error) {
	name, spec, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	fail := func(format string, args ...any) (Proxy, error) {
		return Proxy{}, fmt.Errorf("driver: proxy %q: %s", name, fmt.Sprintf(format, args...))
	}
	if !ok || strings.TrimSpace(spec) == "" {
		return Proxy{}, fmt.Errorf("driver: proxy %q: want NAME=ADDR or NAME=COMMAND", s)
	}
	if !proxyName.MatchString(name) {
		return fail("want a name of lower-case letters, digits and _, starting with a letter")
	}
	if _, err := hop.ParseRelay(name); err == nil {
		return fail("names one of hopbench's own paths")
	}
	p := Proxy{Name: name, Spec: strings.TrimSpace(spec)}
	if !strings.ContainsAny(p.Spec, " \t{") {
		a, err := sockets.Parse(p.Spec)
		if err != nil && sockets.Typed(p.Spec) {
			// Meant as an address (tcp:localhost): its own fault, not a
			// command's missing {listen}.
			return fail("address %s: %s, where the proxy listens (a command would say {listen} and {upstream})",
				p.Spec, cli.Detail(p.Spec, err))
		}
		if err == nil {
			if a.Role == sockets.RoleListen {
				return fail("%s is a listen address: give where the proxy listens, as a client dials it", p.Spec)
			}
			if !a.IsUnix() && a.Host == "" {
				return fail("%s: no host", p.Spec)
			}
			a.Role, a.Opts = sockets.RoleAny, sockets.Options{}
			p.Addr = &a
			return p, nil
		}
	}
	words, err := splitWords(p.Spec)
	if err != nil {
		return fail("%v", err)
	}
	p.Command = words
	text := strings.Join(words, " ")
	for _, w := range words {
		for _, m := range placeholder.FindAllString(w, -1) {
			path, ok := strings.CutPrefix(strings.TrimSuffix(m, "}"), "{config:")
			switch {
			case ok:
				b, err := os.ReadFile(path)
				if err != nil {
					return fail("{config:%s}: %v", path, err)
				}
				if p.Configs == nil {
					p.Configs = map[string]string{}
				}
				p.Configs[path] = string(b)
				text += " " + string(b)
				if bad := unknownPlaceholder(string(b)); bad != "" {
					return fail("%s: unknown placeholder %s (want %s)", path, bad, strings.Join(proxyKeys, ", "))
				}
			case !slices.Contains(proxyKeys, m):
				return fail("unknown placeholder %s (want %s or {config:PATH})", m, strings.Join(proxyKeys, ", "))
			}
		}
	}
	if !strings.Contains(text, "{listen}") && !strings.Contains(text, "{listen_port}") {
		return fail("the command (or its {config:PATH}) never says {listen} or {listen_port}: hopbench could not tell it where to listen")
	}
	if !strings.Contains(text, "{upstream}") && !strings.Contains(text, "{upstream_port}") {
		return fail("the command (or its {config:PATH}) never says {upstream} or {upstream_port}: it would not relay to the backend")
	}
	return p, nil
}

func unknownPlaceholder(s string) string {
	for _, m := range placeholder.FindAllString(s, -1) {
		if !slices.Contains(proxyKeys, m) {
			return m
		}
	}
	return ""
}

// splitWords splits a command line as sh(1) does for words: blanks
// separate, single quotes keep everything, double quotes keep all but a
// backslash before " or \, a backslash outside quotes keeps the next byte.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false // inside a word
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated '")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New(`unterminated "`)
			}
			in = true
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New(`trailing \`)
			}
			i++
			w.WriteByte(s[i])
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// Path is the proxy's path: a TCP client leg for a template (it listens
// on {listen}), the address's transport for a running one; the upstream
// leg is TCP, the backend's.
func (p Proxy) Path() hop.Path {
	client := hop.TCP
	if p.Addr != nil && p.Addr.IsUnix() {
		client = hop.UNIX
	}
	return hop.Path{Relay: hop.Relay(p.Name), Client: client, Upstream: hop.TCP, Hops: 1}
}

// expand is the template with listen and upstream substituted, the config
// files written into dir.
func (p Proxy) expand(listen, upstream sockets.Addr, dir string) ([]string, error) {
	r := strings.NewReplacer(
		"{listen}", listen.NetAddr(), "{listen_host}", listen.Host, "{listen_port}", strconv.Itoa(listen.Port),
		"{upstream}", upstream.NetAddr(), "{upstream_host}", upstream.Host, "{upstream_port}", strconv.Itoa(upstream.Port),
		"{dir}", dir)
	written := map[string]string{}
	argv := make([]string, len(p.Command))
	for i, w := range p.Command {
		var err error
		argv[i] = placeholder.ReplaceAllStringFunc(w, func(m string) string {
			src, ok := strings.CutPrefix(strings.TrimSuffix(m, "}"), "{config:")
			if !ok {
				return r.Replace(m)
			}
			if out, ok := written[src]; ok {
				return out
			}
			out := filepath.Join(dir, fmt.Sprintf("%d-%s", len(written), filepath.Base(src)))
			if werr := os.WriteFile(out, []byte(r.Replace(p.Configs[src])), 0o600); werr != nil && err == nil {
				err = fmt.Errorf("driver: proxy %s: write %s: %w", p.Name, out, werr)
			}
			written[src] = out
			return out
		})
		if err != nil {
			return nil, err
		}
	}
	return argv, nil
}

// proxyOf is the proxy whose path p is, nil for hopbench's own.
func (spec TopologySpec) proxyOf(p hop.Path) *Proxy {
	for i := range spec.Proxies {
		if hop.Relay(spec.Proxies[i].Name) == p.Relay {
			return &spec.Proxies[i]
		}
	}
	return nil
}

// startProxy puts path p through the user's proxy x: one running already
// is dialed where it listens, and the process holding that socket, when it
// runs here, is measured (not placed: it is the user's); a template is
// started on a free port, as HAProxy is, and awaited by a connect.
func (t *Topology) startProxy(ctx context.Context, spec TopologySpec, x *Proxy, p hop.Path, upstream sockets.Addr) error {
	if x.Addr != nil {
		t.Entries[p] = *x.Addr
		if pid, err := sockets.ListenerPID(*x.Addr); err == nil {
			t.relayStarted(hosts.Attached(x.Name, pid), p)
		} else {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: no CPU time per request: %v", p.Name(), err))
		}
		return nil
	}
	// A proxy the user named that is not there is their mistake to
	// hear about, not a path to skip as a missing socat is.
	bin := x.Command[0]
	if !strings.Contains(bin, "/") {
		var err error
		if bin, err = spec.Locate(bin); err != nil {
			return fmt.Errorf("driver: proxy %s: %w", x.Name, err)
		}
	}
	dir, err := os.MkdirTemp(t.Dir, "proxy-"+x.Name+"-")
	if err != nil {
		return fmt.Errorf("driver: proxy %s: %w", x.Name, err)
	}
	for attempt := 1; ; attempt++ {
		port, err := FreePort()
		if err != nil {
			return err
		}
		listen := spec.Hosts.tcpAt(roles.Relay, port)
		argv, err := x.expand(listen, upstream, dir)
		if err != nil {
			return err
		}
		argv[0] = bin
		proc, err := t.startWith(spec, roles.Relay, hosts.Command{Name: x.Name, Argv: argv, Foreign: true})
		if err != nil {
			return fmt.Errorf("driver: proxy %s: %w", x.Name, err)
		}
		t.relayStarted(proc, p)
		err = proc.Probe(ctx, listen, spec.readyTimeout())
		if err == nil {
			why := escaped(proc, listen, dir)
			if why == "" {
				t.Entries[p] = listen
				return nil
			}
			proc.Stop()
			t.relayForget(proc, p)
			return fmt.Errorf("driver: proxy %s (%s): %s: run it in the foreground (nginx: -g 'daemon off;'), so that hopbench can measure and stop it", x.Name, strings.Join(argv, " "), why)
		}
		proc.Stop()
		t.relayForget(proc, p)
		if why := reapDaemon(listen, dir); why != "" {
			return fmt.Errorf("driver: proxy %s (%s): %s: run it in the foreground (nginx: -g 'daemon off;'), so that hopbench can measure and stop it", x.Name, strings.Join(argv, " "), why)
		}
		if attempt == startAttempts || ctx.Err() != nil || !strings.Contains(proc.Stderr(), "in use") {
			// Only a port taken meanwhile is worth another try.
			return fmt.Errorf("driver: proxy %s (%s): %w", x.Name, strings.Join(argv, " "), err)
		}
	}
}

func (spec TopologySpec) readyTimeout() time.Duration {
	if spec.ReadyTimeout > 0 {
		return spec.ReadyTimeout
	}
	return ReadyTimeout
}

// relayForget undoes relayStarted for a process that did not come up.
func (t *Topology) relayForget(proc *hosts.Process, p hop.Path) {
	t.relayProcs[p] = slices.DeleteFunc(t.relayProcs[p], func(q *hosts.Process) bool { return q == proc })
}

// escaped reports, and stops, a proxy that listens from outside the
// process group hopbench started it in: one that went into the
// background (daemon(3) calls setsid), which no Stop of the group would
// reach. "" when the listener is the proxy's own.
func escaped(proc *hosts.Process, listen sockets.Addr, dir string) string {
	pid, err := sockets.ListenerPID(listen)
	if err != nil {
		return ""
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// pid (comm) state ppid pgrp …
	_, rest, _ := strings.Cut(string(stat), ") ")
	f := strings.Fields(rest)
	if len(f) > 2 && f[2] == strconv.Itoa(proc.PID()) {
		return ""
	}
	return reapDaemon(listen, dir)
}

// reapDaemon handles a template that went into the background: its
// process exited while something it left behind, in a session of its own
// (daemon(3) calls setsid), listens on the port chosen for it. That holder,
// recognised by the proxy's own directory on its command line, is stopped
// with its process group; the reason is returned, "" when no such process
// listens.
func reapDaemon(listen sockets.Addr, dir string) string {
	pid, err := sockets.ListenerPID(listen)
	if err != nil {
		return ""
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), dir) {
		return ""
	}
	hosts.TerminateGroup(pid)
	for range 300 { // up to 3 s, as Process.Stop's grace
		if !running(pid) {
			return fmt.Sprintf("it left process %d listening on %s after it exited (stopped now)", pid, listen)
		}
		time.Sleep(10 * time.Millisecond) // a process we did not fork cannot be waited for
	}
	hosts.KillGroup(pid)
	return fmt.Sprintf("it left process %d listening on %s after it exited (stopped now)", pid, listen)
}

// running reports whether pid is a process that has not exited (a zombie
// has).
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(stat), ") ")
	return ok && !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

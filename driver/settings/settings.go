package settings

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/list"
)

// A setting is one of hopbench's flags as a topology file gives it: the
// key, the flag, how read reads the key's value into the File and how Args
// writes it back as the flag's value. A flag joins the file as one row of
// keyTable and the File field the row fills.
type setting struct {
	key, flag string
	read      func(f *File, v string) error
	value     func(t *File) string
	// unset, when not nil, is the flag's value Args gives when the file
	// does not set the key, or when value is nil; ok is false for none.
	unset func(t *File) (v string, ok bool)
	// values, when not nil, gives a repeatable flag once per value: a
	// family of keys (PROXY_<NAME>) rather than one.
	values func(t *File) []string
}

// keyTable is every setting, in the order read reads them (the
// first error is the one reported) and Args writes them.
var keyTable = []setting{
	// BACKEND is one backend or several, separated by ';' (as RonDB's
	// SERVER_HOST lists its MySQL servers): client instances take them
	// round-robin (CLIENT_INSTANCES).
	{key: "BACKEND", flag: "backend", read: func(f *File, v string) error {
		// Split at ';' alone: a password may hold a comma.
		items := strings.Split(v, ";")
		for i, it := range items {
			it = strings.TrimSpace(it)
			items[i] = it
			if it != "" && it != "embedded" && !strings.HasPrefix(it, "mysql://") || len(items) > 1 && !strings.HasPrefix(it, "mysql://") {
				return f.Errorf("BACKEND", "want embedded or mysql://USER:PASS@HOST:PORT/DB, or several mysql:// separated by ;")
			}
		}
		f.Backend = v
		f.Backends = items
		return nil
	}, value: func(t *File) string { return t.Backend }},
	// REPLICA is the replicas mysql-rw's router reads from (--replica,
	// repeated), separated by ';' like BACKEND's servers.
	{key: "REPLICA", flag: "replica", read: func(f *File, v string) error {
		f.Replicas = nil
		for _, it := range strings.Split(v, ";") {
			if it = strings.TrimSpace(it); !strings.HasPrefix(it, "mysql://") {
				return f.Errorf("REPLICA", "want mysql://USER:PASS@HOST:PORT/DB, or several separated by ;")
			}
			f.Replicas = append(f.Replicas, it)
		}
		return nil
	}, values: func(t *File) []string { return t.Replicas }},
	// CLIENT_INSTANCES (autobench's SYSBENCH_INSTANCES) runs that many
	// clients at once, in lock-step through the thread sweep, each against
	// a backend (or server host) in turn.
	integer("CLIENT_INSTANCES", "client-instances", func(t *File) *int { return &t.Instances }, 1),
	word("PROTO", "proto", func(t *File) *string { return &t.Proto }, protoNames),
	word("COMMAND", "command", func(t *File) *string { return &t.Command }, commandNames),
	words("PATHS", "paths", func(t *File) *[]string { return &t.Paths }, relayNames),
	words("TRANSPORTS", "transports", func(t *File) *[]string { return &t.Transports }, transportNames),
	ints("THREADS", "threads", func(t *File) *[]int { return &t.Threads }, 1),
	duration("TIME", "time", func(t *File) *time.Duration { return &t.Time }, true),
	duration("WARMUP", "warmup", func(t *File) *time.Duration { return &t.Warmup }, false),
	integer("ROUND_REQUESTS", "round-requests", func(t *File) *int { return &t.RoundRequests }, 0),
	duration("BUDGET", "budget", func(t *File) *time.Duration { return &t.Budget }, false),
	integer("RUNS", "runs", func(t *File) *int { return &t.Runs }, 1),
	integer("DISCARD", "discard", func(t *File) *int { return &t.Discard }, 0),
	ints("HOPS", "hops", func(t *File) *[]int { return &t.Hops }, 0),
	{key: "SERVICE_TIME", flag: "service-time", read: func(f *File, v string) error {
		d, err := list.Durations(v)
		if err != nil {
			return f.Errorf("SERVICE_TIME", "%v", err)
		}
		f.ServiceTimes = d
		return nil
	}, value: func(t *File) string { return joinList(t.ServiceTimes, time.Duration.String) }},
	ints("SIZE", "size", func(t *File) *[]int { return &t.Sizes }, 1),
	ints("ROWS", "rows", func(t *File) *[]int { return &t.Rows }, 0),
	{key: "PLACEMENT", flag: "placement", read: func(f *File, v string) error {
		f.Placement = v
		return nil
	}, value: func(t *File) string { return t.Placement }, unset: cpusPlacement},
	// BACKEND_CPUS places the backend component (places.go reads it):
	// one hopbench starts (BACKEND_START) runs there from its start, and
	// a running one on this machine is pinned there for the run, which is
	// --backend-cpus.
	{key: "BACKEND_CPUS", flag: "backend-cpus", read: func(f *File, v string) error { return nil },
		unset: func(t *File) (string, bool) {
			cpus := t.Place[hosts.Backend].CPUs
			return cpus, cpus != "" && len(t.BackendStart) == 0 && t.HostOf(hosts.Backend).Kind == hosts.Local
		}},
	{key: "NICE", flag: "nice", read: func(f *File, v string) error {
		n, e := strconv.Atoi(v)
		if e != nil || n < -20 || n > 19 {
			return f.Errorf("NICE", "%q: want -20 to 19", v)
		}
		f.Nice = n
		return nil
	}, value: func(t *File) string { return strconv.Itoa(t.Nice) }},
	word("RELAY_LOCK", "relay-lock", func(t *File) *string { return &t.RelayLock }, lockNames),
	// PROXY_NGINX='nginx -p {dir} -c {config:/etc/hoplat/stream.conf} -g "daemon off;"'
	// or PROXY_MAXSCALE=tcp:127.0.0.1:4006 is --proxy nginx=… (read by
	// readProxies; hopbench parses the value).
	{key: "PROXY_<NAME>", flag: "proxy", read: func(*File, string) error { return nil },
		values: func(t *File) []string { return t.Proxies }},
	boolean("STATS", "stats", func(t *File) *bool { return &t.Stats }),
	boolean("TRACE", "trace", func(t *File) *bool { return &t.Trace }),
	word("FORMAT", "format", func(t *File) *string { return &t.Format }, formatNames),
	word("OUT", "out", func(t *File) *string { return &t.Out }, nil),
	boolean("QUIET", "quiet", func(t *File) *bool { return &t.Quiet }),
	boolean("VERBOSE", "verbose", func(t *File) *bool { return &t.Verbose }),
	boolean("WIDE", "wide", func(t *File) *bool { return &t.Wide }),
	word("HISTORY", "history", func(t *File) *string { return &t.History }, nil),
}

// FlagKeys maps each of hopbench's flags to the key that sets it in a
// topology file. Keys not in this map (hosts, placement on hosts, ssh) have
// no flag.
var FlagKeys = func() map[string]string {
	m := make(map[string]string, len(keyTable))
	for _, s := range keyTable {
		m[s.flag] = s.key
	}
	return m
}()

// aliases are autobench.conf's names for settings.
var aliases = map[string]string{
	"THREAD_COUNTS_TO_RUN": "THREADS",
	"MAX_TIME":             "TIME",
	"SYSBENCH_INSTANCES":   "CLIENT_INSTANCES",
}

// The vocabularies the driver accepts, checked here so that a typo is
// reported at its line; a test keeps them equal to the driver's.
var (
	relayNames     = []string{"direct", "none", "goroutine", "epoll", "splice", "sockmap", "socat", "haproxy", "mysql-conn", "mysql-rw"}
	transportNames = []string{"tcp", "unix"}
	protoNames     = []string{"echo", "mysql"}
	commandNames   = []string{"ping", "select1", "point-select", "oltp-ro", "oltp-rw", "oltp-wo", "query"}
	lockNames      = []string{"none", "conn", "global"}
	formatNames    = []string{"text", "json", "csv"}
)

// word is a setting of one value, from vocab unless vocab is nil.
func word(key, flag string, field func(*File) *string, vocab []string) setting {
	return setting{key: key, flag: flag, read: func(f *File, v string) error {
		if vocab != nil && !slices.Contains(vocab, v) {
			return f.Errorf(key, "%q: want %s", v, strings.Join(vocab, ", "))
		}
		*field(f) = v
		return nil
	}, value: func(t *File) string { return *field(t) }}
}

// words is a setting of a LIST of words from vocab, in any case.
func words(key, flag string, field func(*File) *[]string, vocab []string) setting {
	return setting{key: key, flag: flag, read: func(f *File, v string) error {
		items, err := f.list(key, v)
		for _, it := range items {
			it = strings.ToLower(it)
			if !slices.Contains(vocab, it) {
				return f.Errorf(key, "%q: want %s", it, strings.Join(vocab, ", "))
			}
			*field(f) = append(*field(f), it)
		}
		return err
	}, value: func(t *File) string { return strings.Join(*field(t), ",") }}
}

// ints is a setting of a LIST of whole numbers of at least lo, ranges
// expanded, as the flag reads it (internal/list).
func ints(key, flag string, field func(*File) *[]int, lo int) setting {
	return setting{key: key, flag: flag, read: func(f *File, v string) error {
		n, err := list.Ints(v, lo)
		if err != nil {
			return f.Errorf(key, "%v", err)
		}
		*field(f) = n
		return nil
	}, value: func(t *File) string { return joinList(*field(t), strconv.Itoa) }}
}

// integer is a setting of one whole number of at least lo.
func integer(key, flag string, field func(*File) *int, lo int) setting {
	return setting{key: key, flag: flag, read: func(f *File, v string) error {
		n, e := strconv.Atoi(v)
		if e != nil || n < lo {
			return f.Errorf(key, "%q: want a whole number of at least %d", v, lo)
		}
		*field(f) = n
		return nil
	}, value: func(t *File) string { return strconv.Itoa(*field(t)) }}
}

// duration is a setting of one duration (parseDuration's syntax), above
// zero when positive is set.
func duration(key, flag string, field func(*File) *time.Duration, positive bool) setting {
	return setting{key: key, flag: flag, read: func(f *File, v string) error {
		d, e := parseDuration(v)
		if e != nil {
			return f.Errorf(key, "%v", e)
		}
		if d < 0 || positive && d == 0 {
			return f.Errorf(key, "%q: must be positive", v)
		}
		*field(f) = d
		return nil
	}, value: func(t *File) string { return field(t).String() }}
}

// boolean is a yes-or-no setting.
func boolean(key, flag string, field func(*File) *bool) setting {
	return setting{key: key, flag: flag, read: func(f *File, v string) error {
		switch strings.ToLower(v) {
		case "1", "yes", "true", "on":
			*field(f) = true
		case "0", "no", "false", "off":
			*field(f) = false
		default:
			return f.Errorf(key, "%q: want yes or no", v)
		}
		return nil
	}, value: func(t *File) string { return strconv.FormatBool(*field(t)) }}
}

// list is the items of key's LIST value v, or the error naming it.
func (f *File) list(key, v string) ([]string, error) {
	items, err := list.Items(v)
	if err != nil {
		return nil, f.Errorf(key, "%v", err)
	}
	return items, nil
}

// joinList writes a LIST value back as a flag takes it: 1,2,4.
func joinList[T any](v []T, format func(T) string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = format(x)
	}
	return strings.Join(s, ",")
}

// read reads every key of the file that is a setting, and checks the
// settings against each other and against the keys hosts reads.
func (f *File) read() error {
	for _, s := range keyTable {
		if v, ok := f.Value(s.key); ok {
			if err := s.read(f, v); err != nil {
				return err
			}
		}
	}
	for _, k := range f.Keys() {
		if name, ok := strings.CutPrefix(k, "PROXY_"); ok {
			v, _ := f.Value(k)
			if v == "" {
				return f.Errorf(k, "empty: want ADDR or a command template")
			}
			f.Proxies = append(f.Proxies, strings.ToLower(name)+"="+v)
		}
	}
	if f.Has("DISCARD") && f.Has("RUNS") && f.Discard >= f.Runs {
		return f.Errorf("DISCARD", "%d: must be below RUNS %d (line %d)", f.Discard, f.Runs, f.Lines["RUNS"])
	}
	if f.Has("BACKEND_START") && (f.Backend == "" || f.Backend == "embedded") {
		return f.Errorf("BACKEND_START", "starts a real backend: set BACKEND=mysql://… to the address it serves")
	}
	if f.Placement != "" {
		for _, c := range hosts.Components {
			if k := strings.ToUpper(c) + "_CPUS"; f.Has(k) {
				return f.Errorf("PLACEMENT", "set with %s (line %d): give one or the other", k, f.Lines[k])
			}
		}
	}
	return nil
}

// parseDuration reads Go duration syntax, or a bare number of seconds as
// autobench.conf's MAX_TIME is written.
func parseDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || n > 1e6 {
			return 0, fmt.Errorf("%q: want 0 to 1000000 seconds", s)
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want seconds (30) or a duration (30s, 500ms)", s)
	}
	return d, nil
}

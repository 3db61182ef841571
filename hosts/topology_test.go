package hosts

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
)

func TestParseTopology(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want func(*TopologyFile) bool
	}{
		{"empty file runs everything here", "", func(tp *TopologyFile) bool {
			return len(tp.Hosts) == 1 && tp.Hosts[0].Kind == Local &&
				tp.Place[Client].Host == "local" && tp.Place[Backend].Host == "local" && tp.RemoteBin == "ship"
		}},
		{"quotes, comments, export", "# c\n\nexport TEST_NAME=\"a \\\"b\\\" # c\" # trailing\nOUT='/tmp/x y'\nFORMAT=json # why\n", func(tp *TopologyFile) bool {
			return tp.Name == `a "b" # c` && tp.Out == "/tmp/x y" && tp.Format == "json"
		}},
		{"lists with either separator", "THREADS=\"1;2, 4\"\nHOPS=0,1,2\nPATHS=\"Direct;epoll\"\n", func(tp *TopologyFile) bool {
			return slices.Equal(tp.Threads, []int{1, 2, 4}) && slices.Equal(tp.Hops, []int{0, 1, 2}) &&
				slices.Equal(tp.Paths, []string{"direct", "epoll"})
		}},
		{"ranges, as every LIST takes them", "THREADS=1-2\nHOPS=\"0-1;3\"\nSERVICE_TIME=\"0,20us;1ms\"\n", func(tp *TopologyFile) bool {
			return slices.Equal(tp.Threads, []int{1, 2}) && slices.Equal(tp.Hops, []int{0, 1, 3}) && len(tp.ServiceTimes) == 3
		}},
		{"autobench aliases", "THREAD_COUNTS_TO_RUN=\"1;2\"\nMAX_TIME=30\nBENCHMARK_CPUS=0-1\n", func(tp *TopologyFile) bool {
			return slices.Equal(tp.Threads, []int{1, 2}) && tp.Time == 30*time.Second &&
				tp.Place[Client].CPUs == "0-1" && tp.Has("TIME") && tp.Has("CLIENT_CPUS")
		}},
		{"durations", "TIME=500ms\nWARMUP=0\nSERVICE_TIME=\"0;20us;1ms\"\n", func(tp *TopologyFile) bool {
			return tp.Time == 500*time.Millisecond && tp.Warmup == 0 && tp.Has("WARMUP") &&
				slices.Equal(tp.ServiceTimes, []time.Duration{0, 20 * time.Microsecond, time.Millisecond})
		}},
		{"unset discard is not zero discard", "RUNS=3\n", func(tp *TopologyFile) bool {
			return tp.Runs == 3 && !tp.Has("DISCARD") && tp.Has("RUNS")
		}},
		{"components follow the client, backend the server", "HOST_A=netns:a\nHOST_B=netns:b\nSERVER_HOST=b\n", func(tp *TopologyFile) bool {
			return tp.Place[Client].Host == "a" && tp.Place[Relay].Host == "a" && tp.Place[Server].Host == "b" &&
				tp.Place[Backend].Host == "b" && tp.Hosts[1].Namespace == "b"
		}},
		{"inline specs declare hosts once", "CLIENT_HOST=netns:app\nRELAY_HOST=netns:app\nSERVER_HOST=netns:db\n", func(tp *TopologyFile) bool {
			return len(tp.Hosts) == 2 && tp.Place[Relay].Host == "app" && tp.Place[Server].Host == "db"
		}},
		{"ssh with port, v6, via", "HOST_APP=netns:app\nHOST_DB=\"ssh://me@[fd00::2]:2222\"\nHOST_DB_VIA=app\nSERVER_HOST=db\n", func(tp *TopologyFile) bool {
			h, _ := tp.Host("db")
			return h.Kind == SSH && h.User == "me" && h.Addr == "fd00::2" && h.Port == 2222 && h.Via == "app"
		}},
		{"ssh options split on spaces", "SSH_OPTIONS=\"-i /k -o ConnectTimeout=3\"\nREMOTE_BIN=/opt/hoplat\n", func(tp *TopologyFile) bool {
			return slices.Equal(tp.SSHOptions, []string{"-i", "/k", "-o", "ConnectTimeout=3"}) && tp.RemoteBin == "/opt/hoplat"
		}},
		{"booleans", "STATS=yes\nQUIET=0\n", func(tp *TopologyFile) bool { return tp.Stats && !tp.Quiet && tp.Has("QUIET") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := ParseTopology("t.conf", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(tp) {
				t.Errorf("parsed %+v", tp)
			}
		})
	}
}

func TestParseTopologyErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"FOO\n", `t.conf:1: line "FOO": want KEY=value`},
		{"\n\nthreads=1\n", `t.conf:3: key "threads": want upper case`},
		{"THREADS = 1\n", `t.conf:1: key "THREADS ": want upper case`},
		{"THREDS=1\n", `t.conf:1: THREDS: unknown key (did you mean THREADS?)`},
		{"THREADS=1\nTHREAD_COUNTS_TO_RUN=2\n", `t.conf:2: THREAD_COUNTS_TO_RUN: already set (as THREADS) at line 1`},
		{"TIME=1s\nTIME=2s\n", `t.conf:2: TIME: already set at line 1`},
		{"THREADS=\"1;x\"\n", `t.conf:1: THREADS: "1;x": bad number "x"`},
		{"THREADS=\"1;;2\"\n", `t.conf:1: THREADS: "1;;2": empty element`},
		{"THREADS=0\n", `THREADS: "0": want at least 1`},
		{"TIME=0\n", `t.conf:1: TIME: "0": must be positive`},
		{"TIME=fast\n", `TIME: "fast": want seconds (30) or a duration`},
		{"RUNS=2\nDISCARD=2\n", `t.conf:2: DISCARD: 2: must be below RUNS 2 (line 1)`},
		{"PATHS=direct,nginx\n", `PATHS: "nginx": want direct, none, goroutine`},
		{"FORMAT=xml\n", `FORMAT: "xml": want text, json, csv`},
		{"NICE=40\n", `NICE: "40": want -20 to 19`},
		{"TEST_NAME=\"open\n", `t.conf:1: TEST_NAME: unterminated "`},
		{"TEST_NAME=a b\n", `TEST_NAME: text "b" after the value`},
		{"TEST_NAME=a\"b\n", `TEST_NAME: value "a\"b": quote the whole value`},
		{"BACKEND=postgres://x\n", `BACKEND: want embedded or mysql://`},
		{"BACKEND_START=mariadbd\n", `t.conf:1: BACKEND_START: starts a real backend: set BACKEND=mysql://`},
		{"BACKEND=mysql://u:p@10.77.0.2/db\nBACKEND_START=\"  \"\n", `t.conf:2: BACKEND_START: empty command`},
		{"HOST_DB=vm:db\n", `t.conf:1: HOST_DB: "vm:db": want local, netns:NAME or ssh://`},
		{"HOST_DB=netns:Db\n", `HOST_DB: "netns:Db": namespace name "Db"`},
		{"HOST_DB=ssh://host\n", `HOST_DB: "ssh://host": want ssh://user@host[:port]`},
		{"HOST_DB=ssh://u:pw@host\n", `no passwords in the file`},
		{"HOST_DB=ssh://u@host:99999\n", `port "99999": want 1 to 65535`},
		{"HOST_DB=ssh://u@-oProxyCommand=x\n", `characters ssh would read as options`},
		{"HOST_DB=ssh://u@h/x\n", `nothing after it`},
		{"HOST_DB_X=local\n", `HOST_DB_X: unknown key (HOST_NAME declares a host: "db_x" is not a host name`},
		{"HOST_A=netns:x\nHOST_B=netns:x\n", `t.conf:2: HOST_B: namespace x is host a already`},
		{"HOST_A=local\nHOST_B=local\n", `HOST_B: host b is this machine, as a is already`},
		{"SERVER_HOST=db\n", `t.conf:1: SERVER_HOST: "db": no such host (declare it with HOST_DB=SPEC`},
		{"CLIENT_HOST=\"netns:a;netns:b\"\n", `CLIENT_HOST: "netns:a;netns:b": one host per component (only SERVER_HOST lists several)`},
		{"HOST_A=netns:a\nSERVER_HOST=\"a;a\"\n", `SERVER_HOST: "a": host a listed twice`},
		{"HOST_A=netns:a\nHOST_B=netns:b\nHOST_C=local\nCLIENT_HOST=a\nSERVER_HOST=\"b;c\"\n", `SERVER_HOST: client on a (netns:a) cannot reach server c (local)`},
		{"BACKEND=\"mysql://u:p@h:1/d;embedded\"\n", `BACKEND: want embedded or mysql://USER:PASS@HOST:PORT/DB, or several mysql:// separated by ;`},
		{"SYSBENCH_INSTANCES=0\n", `SYSBENCH_INSTANCES: "0": want a whole number of at least 1`},
		{"HOST_A=local\nHOST_B=netns:b\nSERVER_HOST=b\n", `t.conf:3: SERVER_HOST: client on a (local) cannot reach server on b (netns:b)`},
		{"HOST_A=netns:a\nHOST_B=ssh://u@h\nSERVER_HOST=b\n", `SERVER_HOST: client on a (netns:a) cannot reach server on b (ssh://u@h)`},
		{"HOST_A=netns:a\nHOST_A_VIA=a\n", `HOST_A_VIA: host a is netns: only an ssh host`},
		{"HOST_B=ssh://u@h\nHOST_B_VIA=c\n", `HOST_B_VIA: "c": no such host`},
		{"HOST_C_VIA=c\n", `HOST_C_VIA: no host c`},
		{"CLIENT_CPUS=0-x\n", `t.conf:1: CLIENT_CPUS: "0-x": bad CPU "x"`},
		{"CLIENT_CPUS=1\nPLACEMENT=spread\n", `PLACEMENT: set with CLIENT_CPUS (line 1)`},
		{"REMOTE_BIN=bin\n", `REMOTE_BIN: "bin": want ship, path or an absolute directory`},
	}
	for _, tc := range tests {
		_, err := ParseTopology("t.conf", []byte(tc.src))
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.src, tc.want)
			continue
		}
		var te *Error
		if !errors.As(err, &te) {
			t.Errorf("%q: error %T is not *Error", tc.src, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant …%s…", tc.src, err, tc.want)
		}
	}
}

func TestErrorfNamesLine(t *testing.T) {
	tp, err := ParseTopology("x.conf", []byte("\nPLACEMENT=\"client=99\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := tp.Errorf("PLACEMENT", "cpu %d not online", 99).Error()
	if want := "topology x.conf:2: PLACEMENT: cpu 99 not online"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Every seed experiment has an example file, and each parses to the
// placement its comment describes.
func TestExampleFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/*.conf")
	if err != nil || len(files) < 3 {
		t.Fatalf("example files: %v %v", files, err)
	}
	want := map[string]func(*TopologyFile) error{
		"mxs-1515.conf": func(tp *TopologyFile) error {
			if tp.HostOf(Server).Kind != NetNS || tp.Place[Relay].Host != tp.Place[Client].Host || tp.Place[Server].Host == tp.Place[Client].Host {
				return errors.New("want client and relay on one netns host, server on another")
			}
			if tp.Time != 30*time.Second || tp.Command != "oltp-ro" || len(tp.Paths) != 4 {
				return errors.New("want 30 s of oltp-ro on four paths")
			}
			return nil
		},
		"galera-haproxy.conf": func(tp *TopologyFile) error {
			if tp.HostOf(Backend).Kind != SSH || !slices.Equal(tp.Threads, []int{150, 450}) || tp.RemoteBin != "path" {
				return errors.New("want a backend over ssh at 150 and 450 threads")
			}
			return nil
		},
		"rondb-sweep.conf": func(tp *TopologyFile) error {
			if len(tp.Servers) != 2 || tp.HostOf(Server).Kind != NetNS || tp.Instances != 2 || len(tp.Threads) != 13 ||
				tp.Place[Client].CPUs != "0" || tp.HostOf(Client).Kind != NetNS {
				return errors.New("want a 13-step sweep of two client instances against two servers, each in a namespace")
			}
			return nil
		},
	}
	for _, f := range files {
		tp, err := ReadTopology(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		check, ok := want[filepath.Base(f)]
		if !ok {
			t.Errorf("%s: no check for this example", f)
			continue
		}
		if err := check(tp); err != nil {
			t.Errorf("%s: %v: %+v", f, err, tp)
		}
	}
}

// Every hopbench flag but --help has a key, so that a file can say
// everything the flags say.
func TestFlagKeysCoverHopbench(t *testing.T) {
	src, err := os.ReadFile("../cmd/hopbench/flags.go")
	if err != nil {
		t.Skipf("hopbench's flags: %v", err)
	}
	re := regexp.MustCompile(`fs\.\w+\("([a-z-]+)"`)
	var flags []string
	for _, m := range re.FindAllSubmatch(src, -1) {
		if f := string(m[1]); f != "help" && f != "topology" {
			flags = append(flags, f)
		}
	}
	if len(flags) < 10 {
		t.Fatalf("found only %v in flags.go", flags)
	}
	for _, f := range flags {
		if _, ok := FlagKeys[f]; !ok {
			t.Errorf("flag --%s has no topology key", f)
		}
	}
	for f := range FlagKeys {
		if !slices.Contains(flags, f) {
			t.Errorf("key for --%s, which hopbench does not have", f)
		}
	}
}

func TestReadTopologyMissing(t *testing.T) {
	_, err := ReadTopology(filepath.Join(t.TempDir(), "none.conf"))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "none.conf") {
		t.Errorf("got %v", err)
	}
}

func FuzzParseTopology(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.conf")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("HOST_A=\"ssh://u@[::1]:22\"\nHOST_A_VIA=a\nX='"))
	f.Add([]byte("HOST_A=netns:a\nSERVER_HOST=\"netns:b;netns:c\"\nCLIENT_HOST=a\nBACKEND=\"mysql://u:p@h:1/d; mysql://u:p@h:2/d\"\nSYSBENCH_INSTANCES=3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tp, err := ParseTopology("f.conf", b)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) || !strings.HasPrefix(err.Error(), "topology f.conf") {
				t.Fatalf("error without file: %v", err)
			}
			return
		}
		// Every component is placed on a declared host, every server
		// too, the first of them where the server component is.
		for _, c := range Components {
			if _, ok := tp.Host(tp.Place[c].Host); !ok {
				t.Fatalf("%s on undeclared host %q", c, tp.Place[c].Host)
			}
		}
		if len(tp.Servers) == 0 || tp.Servers[0] != tp.Place[Server].Host {
			t.Fatalf("servers %q, server on %q", tp.Servers, tp.Place[Server].Host)
		}
		for _, s := range tp.Servers {
			if _, ok := tp.Host(s); !ok {
				t.Fatalf("server on undeclared host %q", s)
			}
		}
		if tp.Has("BACKEND") && len(tp.Backends) == 0 {
			t.Fatal("BACKEND set, no backends")
		}
		if reflect.DeepEqual(tp.Lines, nil) {
			t.Fatal("nil Lines")
		}
	})
}

// Args gives every setting of the file as the flag FlagKeys names, once,
// in a form the flag's parser reads back to the same value.
func TestArgs(t *testing.T) {
	src := `BACKEND="mysql://u:p@10.77.0.2:3306/db"
REPLICA="mysql://u:p@10.77.0.3:3306/db"
PROTO=mysql
COMMAND=select1
PATHS="direct;epoll"
TRANSPORTS=tcp
THREAD_COUNTS_TO_RUN="1;2;4"
MAX_TIME=30
WARMUP=100ms
ROUND_REQUESTS=500
BUDGET=90s
RUNS=5
DISCARD=0
HOPS=0,1,2
SERVICE_TIME="0;20us"
SIZE=64
ROWS=1,10
PLACEMENT="client=0 relay=1;3"
NICE=-5
RELAY_LOCK=conn
PROXY_NGINX='nginx -p {dir} -c {config:/etc/stream.conf} -g "daemon off;"'
PROXY_MAXSCALE=tcp:127.0.0.1:4006
STATS=yes
TRACE=no
FORMAT=json
OUT="/tmp/out dir"
QUIET=no
VERBOSE=yes
WIDE=yes
HISTORY=/var/tmp/runs.jsonl
SYSBENCH_INSTANCES=2
`
	tp, err := ParseTopology("a.conf", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--backend=mysql://u:p@10.77.0.2:3306/db", "--replica=mysql://u:p@10.77.0.3:3306/db", "--client-instances=2", "--proto=mysql", "--command=select1",
		"--paths=direct,epoll", "--transports=tcp", "--threads=1,2,4", "--time=30s", "--warmup=100ms",
		"--round-requests=500", "--budget=1m30s", "--runs=5", "--discard=0", "--hops=0,1,2", "--service-time=0s,20µs", "--size=64", "--rows=1,10",
		"--placement=client=0 relay=1;3", "--nice=-5", "--relay-lock=conn",
		`--proxy=nginx=nginx -p {dir} -c {config:/etc/stream.conf} -g "daemon off;"`, "--proxy=maxscale=tcp:127.0.0.1:4006", "--stats=true", "--trace=false", "--format=json",
		"--out=/tmp/out dir", "--quiet=false", "--verbose=true", "--wide=true",
		"--history=/var/tmp/runs.jsonl"}
	if got := tp.Args(); !slices.Equal(got, want) {
		t.Errorf("Args:\n got %q\nwant %q", got, want)
	}
	// BACKEND_CPUS gives --backend-cpus where PLACEMENT is not set: a
	// running backend on this machine is pinned for the run.
	// --proxy comes twice, once per PROXY_<NAME>.
	if len(want) != len(FlagKeys) {
		t.Errorf("%d flags rendered, FlagKeys has %d", len(want)-1+1, len(FlagKeys))
	}
	tp, err = ParseTopology("c.conf", []byte("BACKEND=mysql://u:p@127.0.0.1:3306/db\nBACKEND_CPUS=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Args(); !slices.Equal(got, []string{"--backend=mysql://u:p@127.0.0.1:3306/db", "--backend-cpus=1"}) {
		t.Errorf("Args %q", got)
	}
	// Unset keys give no flag, so hopbench's defaults stand.
	tp, err = ParseTopology("b.conf", []byte("RUNS=3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Args(); !slices.Equal(got, []string{"--runs=3"}) {
		t.Errorf("Args %q", got)
	}
}

// CPU lists of components on this machine become --placement; those of a
// component on an ssh host do not, being another machine's CPUs.
func TestArgsPlacement(t *testing.T) {
	tp, err := ReadTopology("testdata/mxs-1515.conf")
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Args(); !slices.Contains(got, "--placement=client=0 relay=0 server=1") {
		t.Errorf("mxs-1515: %q", got)
	}
	tp, err = ReadTopology("testdata/rondb-sweep.conf")
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Args(); !slices.Contains(got, "--placement=client=0 server=1") {
		t.Errorf("rondb: %q", got)
	}
	for _, a := range tp.Args() {
		if spec, ok := strings.CutPrefix(a, "--placement="); ok {
			if _, err := affinity.ParsePlacement(spec, anyCPU); err != nil {
				t.Error(err)
			}
		}
	}
	if tp.Place[Server].CPUs != "1" {
		t.Errorf("rondb server cpus %q", tp.Place[Server].CPUs)
	}
}

// BACKEND_START is split at spaces into the command the driver runs on
// BACKEND_HOST; it is no flag, so Args leaves it out.
func TestBackendStart(t *testing.T) {
	tp, err := ParseTopology("t.conf", []byte("HOST_DB=netns:db\nBACKEND=mysql://u:p@10.77.0.1:3306/db\nBACKEND_START=\"/usr/sbin/mariadbd --port=3306  --bind-address=10.77.0.1\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/usr/sbin/mariadbd", "--port=3306", "--bind-address=10.77.0.1"}; !slices.Equal(tp.BackendStart, want) {
		t.Errorf("BackendStart %q, want %q", tp.BackendStart, want)
	}
	for _, a := range tp.Args() {
		if strings.Contains(a, "mariadbd") {
			t.Errorf("Args renders BACKEND_START: %q", a)
		}
	}
}

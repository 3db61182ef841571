package settings

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/hosts/hoststest"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want func(*File) bool
	}{
		{"quotes, comments, export", "# c\n\nexport TEST_NAME=\"a \\\"b\\\" # c\" # trailing\nOUT='/tmp/x y'\nFORMAT=json # why\n", func(tp *File) bool {
			return tp.Name == `a "b" # c` && tp.Out == "/tmp/x y" && tp.Format == "json"
		}},
		{"lists with either separator", "THREADS=\"1;2, 4\"\nHOPS=0,1,2\nPATHS=\"Direct;epoll\"\n", func(tp *File) bool {
			return slices.Equal(tp.Threads, []int{1, 2, 4}) && slices.Equal(tp.Hops, []int{0, 1, 2}) &&
				slices.Equal(tp.Paths, []string{"direct", "epoll"})
		}},
		{"ranges, as every LIST takes them", "THREADS=1-2\nHOPS=\"0-1;3\"\nSERVICE_TIME=\"0,20us;1ms\"\n", func(tp *File) bool {
			return slices.Equal(tp.Threads, []int{1, 2}) && slices.Equal(tp.Hops, []int{0, 1, 3}) && len(tp.ServiceTimes) == 3
		}},
		{"autobench aliases", "THREAD_COUNTS_TO_RUN=\"1;2\"\nMAX_TIME=30\nBENCHMARK_CPUS=0-1\n", func(tp *File) bool {
			return slices.Equal(tp.Threads, []int{1, 2}) && tp.Time == 30*time.Second &&
				tp.Place[hosts.Client].CPUs == "0-1" && tp.Has("TIME") && tp.Has("CLIENT_CPUS")
		}},
		{"durations", "TIME=500ms\nWARMUP=0\nSERVICE_TIME=\"0;20us;1ms\"\n", func(tp *File) bool {
			return tp.Time == 500*time.Millisecond && tp.Warmup == 0 && tp.Has("WARMUP") &&
				slices.Equal(tp.ServiceTimes, []time.Duration{0, 20 * time.Microsecond, time.Millisecond})
		}},
		{"unset discard is not zero discard", "RUNS=3\n", func(tp *File) bool {
			return tp.Runs == 3 && !tp.Has("DISCARD") && tp.Has("RUNS")
		}},
		{"booleans", "STATS=yes\nQUIET=0\n", func(tp *File) bool { return tp.Stats && !tp.Quiet && tp.Has("QUIET") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Parse("t.conf", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(tp) {
				t.Errorf("parsed %+v", tp)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
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
		{"BACKEND=postgres://x\n", `BACKEND: want embedded or mysql://`},
		{"BACKEND_START=mariadbd\n", `t.conf:1: BACKEND_START: starts a real backend: set BACKEND=mysql://`},
		{"BACKEND=\"mysql://u:p@h:1/d;embedded\"\n", `BACKEND: want embedded or mysql://USER:PASS@HOST:PORT/DB, or several mysql:// separated by ;`},
		{"SYSBENCH_INSTANCES=0\n", `SYSBENCH_INSTANCES: "0": want a whole number of at least 1`},
		{"CLIENT_CPUS=1\nPLACEMENT=spread\n", `PLACEMENT: set with CLIENT_CPUS (line 1)`},
	}
	for _, tc := range tests {
		_, err := Parse("t.conf", []byte(tc.src))
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.src, tc.want)
			continue
		}
		var te *hosts.Error
		if !errors.As(err, &te) {
			t.Errorf("%q: error %T is not *Error", tc.src, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant …%s…", tc.src, err, tc.want)
		}
	}
}

func TestErrorfNamesLine(t *testing.T) {
	tp, err := Parse("x.conf", []byte("\nPLACEMENT=\"client=99\"\n"))
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
	files, err := filepath.Glob("../../hosts/testdata/*.conf")
	if err != nil || len(files) < 3 {
		t.Fatalf("example files: %v %v", files, err)
	}
	want := map[string]func(*File) error{
		"mxs-1515.conf": func(tp *File) error {
			if tp.HostOf(hosts.Server).Kind != hosts.NetNS || tp.Place[hosts.Relay].Host != tp.Place[hosts.Client].Host || tp.Place[hosts.Server].Host == tp.Place[hosts.Client].Host {
				return errors.New("want client and relay on one netns host, server on another")
			}
			if tp.Time != 30*time.Second || tp.Command != "oltp-ro" || len(tp.Paths) != 4 {
				return errors.New("want 30 s of oltp-ro on four paths")
			}
			return nil
		},
		"galera-haproxy.conf": func(tp *File) error {
			if tp.HostOf(hosts.Backend).Kind != hosts.SSH || !slices.Equal(tp.Threads, []int{150, 450}) || tp.RemoteBin != "path" {
				return errors.New("want a backend over ssh at 150 and 450 threads")
			}
			return nil
		},
		"rondb-sweep.conf": func(tp *File) error {
			if len(tp.Servers) != 2 || tp.HostOf(hosts.Server).Kind != hosts.NetNS || tp.Instances != 2 || len(tp.Threads) != 13 ||
				tp.Place[hosts.Client].CPUs != "0" || tp.HostOf(hosts.Client).Kind != hosts.NetNS {
				return errors.New("want a 13-step sweep of two client instances against two servers, each in a namespace")
			}
			return nil
		},
	}
	for _, f := range files {
		tp, err := Read(f)
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
	src, err := os.ReadFile("../../cmd/hopbench/flags.go")
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

func FuzzParse(f *testing.F) {
	hoststest.AddSeeds(f, "../../hosts/testdata")
	f.Fuzz(func(t *testing.T, b []byte) {
		tp, err := Parse("f.conf", b)
		if err != nil {
			hoststest.CheckRefusal(t, "f.conf", err)
			return
		}
		hoststest.CheckPlaced(t, tp.TopologyFile)
		if tp.Has("BACKEND") && len(tp.Backends) == 0 {
			t.Fatal("BACKEND set, no backends")
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
	tp, err := Parse("a.conf", []byte(src))
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
	tp, err = Parse("c.conf", []byte("BACKEND=mysql://u:p@127.0.0.1:3306/db\nBACKEND_CPUS=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Args(); !slices.Equal(got, []string{"--backend=mysql://u:p@127.0.0.1:3306/db", "--backend-cpus=1"}) {
		t.Errorf("Args %q", got)
	}
	// Unset keys give no flag, so hopbench's defaults stand.
	tp, err = Parse("b.conf", []byte("RUNS=3\n"))
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
	tp, err := Read("../../hosts/testdata/mxs-1515.conf")
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Args(); !slices.Contains(got, "--placement=client=0 relay=0 server=1") {
		t.Errorf("mxs-1515: %q", got)
	}
	tp, err = Read("../../hosts/testdata/rondb-sweep.conf")
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Args(); !slices.Contains(got, "--placement=client=0 server=1") {
		t.Errorf("rondb: %q", got)
	}
	for _, a := range tp.Args() {
		if spec, ok := strings.CutPrefix(a, "--placement="); ok {
			if _, err := affinity.ParsePlacement(spec, affinity.NewCPUSet(0, 1)); err != nil {
				t.Error(err)
			}
		}
	}
	if tp.Place[hosts.Server].CPUs != "1" {
		t.Errorf("rondb server cpus %q", tp.Place[hosts.Server].CPUs)
	}
}

// BACKEND_START is split at spaces into the command the driver runs on
// BACKEND_HOST; it is no flag, so Args leaves it out.
func TestBackendStart(t *testing.T) {
	tp, err := Parse("t.conf", []byte("HOST_DB=netns:db\nBACKEND=mysql://u:p@10.77.0.1:3306/db\nBACKEND_START=\"/usr/sbin/mariadbd --port=3306  --bind-address=10.77.0.1\"\n"))
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

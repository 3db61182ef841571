package hosts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
		{"quotes, comments, export", "# c\n\nexport TEST_NAME=\"a \\\"b\\\" # c\" # trailing\nSSH_OPTIONS='-v' # why\n", func(tp *TopologyFile) bool {
			return tp.Name == `a "b" # c` && slices.Equal(tp.SSHOptions, []string{"-v"})
		}},
		{"autobench's alias", "BENCHMARK_CPUS=0-1\n", func(tp *TopologyFile) bool {
			return tp.Place[Client].CPUs == "0-1" && tp.Has("CLIENT_CPUS")
		}},
		{"ssh options split on spaces", "SSH_OPTIONS=\"-i /k -o ConnectTimeout=3\"\nREMOTE_BIN=/opt/hoplat\n", func(tp *TopologyFile) bool {
			return slices.Equal(tp.SSHOptions, []string{"-i", "/k", "-o", "ConnectTimeout=3"}) && tp.RemoteBin == "/opt/hoplat"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := ParseTopology("t.conf", []byte(tc.src), nil)
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
		{"TEST_NAME=\"open\n", `t.conf:1: TEST_NAME: unterminated "`},
		{"TEST_NAME=a b\n", `TEST_NAME: text "b" after the value`},
		{"TEST_NAME=a\"b\n", `TEST_NAME: value "a\"b": quote the whole value`},
		{"TEST_NAME=x\nBACKEND_START=\"  \"\n", `t.conf:2: BACKEND_START: empty command`},
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
		{"HOST_A=local\nHOST_B=netns:b\nSERVER_HOST=b\n", `t.conf:3: SERVER_HOST: client on a (local) cannot reach server on b (netns:b)`},
		{"HOST_A=netns:a\nHOST_B=ssh://u@h\nSERVER_HOST=b\n", `SERVER_HOST: client on a (netns:a) cannot reach server on b (ssh://u@h)`},
		{"HOST_A=netns:a\nHOST_A_VIA=a\n", `HOST_A_VIA: host a is netns: only an ssh host`},
		{"HOST_B=ssh://u@h\nHOST_B_VIA=c\n", `HOST_B_VIA: "c": no such host`},
		{"HOST_C_VIA=c\n", `HOST_C_VIA: no host c`},
		{"CLIENT_CPUS=0-x\n", `t.conf:1: CLIENT_CPUS: "0-x": bad CPU "x"`},
		{"REMOTE_BIN=bin\n", `REMOTE_BIN: "bin": want ship, path or an absolute directory`},
	}
	for _, tc := range tests {
		_, err := ParseTopology("t.conf", []byte(tc.src), anyKey)
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
	tp, err := ParseTopology("x.conf", []byte("\nBENCHMARK_CPUS=99\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := tp.Errorf("CLIENT_CPUS", "cpu %d not online", 99).Error()
	if want := "topology x.conf:2: BENCHMARK_CPUS: cpu 99 not online"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadTopologyMissing(t *testing.T) {
	_, err := ReadTopology(filepath.Join(t.TempDir(), "none.conf"), nil)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "none.conf") {
		t.Errorf("got %v", err)
	}
}

// anyKey takes every key hosts does not read, unread, as a program's
// settings would: the example files set hopbench's.
var anyKey = &Settings{Families: []string{""}}

// The program's keys are known, its aliases stand for them and a typo of
// one is answered with the nearest; without them, they are unknown.
func TestSettingsKeys(t *testing.T) {
	var read []string
	s := &Settings{Keys: []string{"THREADS", "PROXY_<NAME>"}, Families: []string{"PROXY_"},
		Aliases: map[string]string{"THREAD_COUNTS_TO_RUN": "THREADS"},
		Read: func(tp *TopologyFile) error {
			for _, k := range tp.Keys() {
				v, _ := tp.Value(k)
				read = append(read, k+"="+v)
			}
			return nil
		}}
	if _, err := ParseTopology("t.conf", []byte("THREAD_COUNTS_TO_RUN=2\nPROXY_NGINX=x\nHOST_A=local\n"), s); err != nil {
		t.Fatal(err)
	}
	if want := []string{"THREADS=2", "PROXY_NGINX=x", "HOST_A=local"}; !slices.Equal(read, want) {
		t.Errorf("read %q, want %q", read, want)
	}
	for src, want := range map[string]string{
		"THREDS=1\n":  "t.conf:1: THREDS: unknown key (did you mean THREADS?)",
		"PROXY_=1\n":  "t.conf:1: PROXY_: unknown key",
		"THREADS=1\n": "",
	} {
		_, err := ParseTopology("t.conf", []byte(src), s)
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && !strings.HasSuffix(got, want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	if _, err := ParseTopology("t.conf", []byte("THREADS=1\n"), nil); err == nil || !strings.Contains(err.Error(), "THREADS: unknown key") {
		t.Errorf("without settings: %v", err)
	}
}

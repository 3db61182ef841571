package settings_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/settings"
	"github.com/hoplat/hoplat/hosts"
)

// MXS-1515's set-up (docs/hopbench.md): the client and the proxy on one
// host, the database on another, here two namespaces of this machine.
func ExampleParse() {
	tp, err := settings.Parse("mxs.conf", []byte(`
HOST_APP="netns:app"
HOST_DB="netns:db"
SERVER_HOST="db"
SERVER_CPUS="1"
THREAD_COUNTS_TO_RUN="1;2;4"
MAX_TIME=30
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range hosts.Components {
		p := tp.Place[c]
		fmt.Printf("%-7s on %s cpus %q\n", c, tp.HostOf(c), p.CPUs)
	}
	fmt.Println(tp.Threads, tp.Time)

	_, err = settings.Parse("mxs.conf", []byte("THREADS=1\nMAX_TIME=forever\n"))
	fmt.Println(err)
	// Output:
	// client  on app (netns:app) cpus ""
	// relay   on app (netns:app) cpus ""
	// server  on db (netns:db) cpus "1"
	// backend on db (netns:db) cpus ""
	// [1 2 4] 30s
	// topology mxs.conf:2: MAX_TIME: "forever": want seconds (30) or a duration (30s, 500ms)
}

// The names the file accepts for paths and transports are the driver's.
func TestVocabularyIsTheDriver(t *testing.T) {
	src := "PATHS=direct"
	for _, r := range hop.Relays {
		src += "," + string(r)
	}
	tp, err := settings.Parse("v.conf", []byte(src+"\nTRANSPORTS=tcp,unix\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tp.Paths {
		if _, err := hop.ParseRelay(p); err != nil {
			t.Error(err)
		}
	}
	for _, tr := range tp.Transports {
		if _, err := hop.ParseTransport(tr); err != nil {
			t.Error(err)
		}
	}
	if !slices.Contains(tp.Paths, "haproxy") {
		t.Errorf("paths %v", tp.Paths)
	}
}

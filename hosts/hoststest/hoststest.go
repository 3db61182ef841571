package hoststest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/hosts"
)

// AddSeeds adds to f's corpus every topology file (*.conf) in dir, the
// examples hosts keeps in its testdata, and two made by hand: an ssh host
// over IPv6 with a quote left open, and a server component on several
// hosts with two backends.
func AddSeeds(f *testing.F, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.conf"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no topology files in %s (%v)", dir, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("HOST_A=\"ssh://u@[::1]:22\"\nHOST_A_VIA=a\nX='"))
	f.Add([]byte("HOST_A=netns:a\nSERVER_HOST=\"netns:b;netns:c\"\nCLIENT_HOST=a\nBACKEND=\"mysql://u:p@h:1/d; mysql://u:p@h:2/d\"\nSYSBENCH_INSTANCES=3\n"))
}

// CheckRefusal fails t unless err, a parser's refusal of the file it
// called name, is a *hosts.Error that names the file.
func CheckRefusal(t *testing.T, name string, err error) {
	t.Helper()
	var te *hosts.Error
	if !errors.As(err, &te) || !strings.HasPrefix(err.Error(), "topology "+name) {
		t.Fatalf("error without file: %v", err)
	}
}

// CheckPlaced fails t unless tp places every component on a host it
// declares, every server too, the first of them where the server
// component is, and keeps its lines.
func CheckPlaced(t *testing.T, tp *hosts.TopologyFile) {
	t.Helper()
	for _, c := range hosts.Components {
		if _, ok := tp.Host(tp.Place[c].Host); !ok {
			t.Fatalf("%s on undeclared host %q", c, tp.Place[c].Host)
		}
	}
	if len(tp.Servers) == 0 || tp.Servers[0] != tp.Place[hosts.Server].Host {
		t.Fatalf("servers %q, server on %q", tp.Servers, tp.Place[hosts.Server].Host)
	}
	for _, s := range tp.Servers {
		if _, ok := tp.Host(s); !ok {
			t.Fatalf("server on undeclared host %q", s)
		}
	}
	if reflect.DeepEqual(tp.Lines, nil) {
		t.Fatal("nil Lines")
	}
}

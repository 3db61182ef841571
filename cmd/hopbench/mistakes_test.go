package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/cmd/internal/usage"
	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/peer"
)

// TestMistakes runs the binary on the mistakes people make: each exits 2
// in well under a second, with one line on stderr that names what was
// typed and what to type instead.
func TestMistakes(t *testing.T) {
	bin := peer.Hoplat(t, "hopbench")
	dir := t.TempDir()
	// Two text reports, as hopbench prints them by default.
	text, err := os.ReadFile(filepath.Join("testdata", "golden", "run.brief.txt"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--run", "3"}, []string{"hopbench: unknown option --run; did you mean --runs?"}},
		{[]string{"-runs", "3"}, []string{"hopbench: -runs: a long option takes two dashes: --runs"}},
		{[]string{"--placement", "pakced"}, []string{`--placement "pakced": did you mean packed?`, "spread, none,"}},
		{[]string{"--placement", "bogus"}, []string{`--placement "bogus": want packed (or same-core), spread, none, or`}},
		{[]string{"--proxy", "maxscale=tcp:localhost"},
			[]string{`--proxy "maxscale=tcp:localhost": proxy "maxscale": address tcp:localhost: the port is missing; want tcp:localhost:PORT`}},
		{[]string{"compare", a, b}, []string{"compare " + a + ": not JSON (a text report?): compare reads the JSON of " +
			"hopbench --format json, or the report.json that hopbench --out DIR writes"}},
		{[]string{"compare", "--alpah", "0.1", a, b}, []string{"unknown option --alpah; did you mean --alpha?"}},
		{[]string{"help", "comapre"}, []string{`hopbench: help "comapre": did you mean hopbench compare?`}},
		{[]string{"help", "bogus"}, []string{`help "bogus": hopbench's subcommands are attach, compare, galera and help`}},
		{[]string{"compre", "a", "b"}, []string{`unexpected argument "compre": did you mean hopbench compare?`}},
	} {
		cmd := exec.Command(bin, tc.args...)
		code, out, errOut := exitOf(t, cmd)
		if code != cli.ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit status %d, stdout %q, stderr %q; want 2 and one line", tc.args, code, out, errOut)
		}
		for _, want := range tc.want {
			if !strings.Contains(errOut, want) {
				t.Errorf("%q: stderr %q lacks %q", tc.args, errOut, want)
			}
		}
	}
	// hopbench help [SUBCOMMAND] is --help, exit 0.
	for _, args := range [][]string{{"help"}, {"help", "compare"}, {"help", "attach"}, {"help", "all"}} {
		code, out, errOut := exitOf(t, exec.Command(bin, args...))
		want := "usage: hopbench "
		if code != 0 || !strings.HasPrefix(out, want) || errOut != "" {
			t.Errorf("%q: exit status %d, stderr %q, stdout begins %.40q; want 0 and %q", args, code, errOut, out, want)
		}
	}
}

// --placement packed is same-core by the name the report gives it, one
// regime named packed; none is taken as before.
func TestParseFlagsPlacementPacked(t *testing.T) {
	o, err := parseFlags([]string{"--placement", "packed"})
	if err != nil {
		t.Fatal(err)
	}
	if p := o.cfg.Placement.String(); p != "same-core" || driver.RegimeOf(o.cfg.Placement).Name != driver.RegimePacked {
		t.Errorf("--placement packed: placement %q, regime %q", p, driver.RegimeOf(o.cfg.Placement).Name)
	}
	if _, err := parseFlags([]string{"--placement", "spraed"}); err == nil || !cli.IsUsage(err) ||
		!strings.Contains(err.Error(), `--placement "spraed": did you mean spread?`) {
		t.Errorf("--placement spraed: %v", err)
	}
}

// --time's help says what a typed --time does beside its default, not
// "unset" beside a default.
func TestTimeHelp(t *testing.T) {
	var b strings.Builder
	fs := pflag.NewFlagSet("hopbench", pflag.ContinueOnError)
	defineFlags(fs, driver.DefaultConfig())
	usage.Standard(fs, &help, "")
	if err := help.WriteAll(&b, fs); err != nil {
		t.Fatal(err)
	}
	_, entry, _ := strings.Cut(b.String(), "--time DUR")
	entry, _, _ = strings.Cut(entry, "\n      --")
	if strings.Contains(entry, "unset") || !strings.Contains(entry, "(default 200ms)") {
		t.Errorf("--time's help:%s", entry)
	}
}

// Nothing a reader of the reports sees cites the notes the project grew
// from, which the repository lacks.
func TestGoldenCitesNothingOutside(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("golden files: %v, %d", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, outside := range []string{"field-notes", "../shared"} {
			if strings.Contains(string(b), outside) {
				t.Errorf("%s cites %s", f, outside)
			}
		}
	}
}

package usage_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/cmd/internal/usage"
)

// TestBinaries builds the four binaries as make build does, with a
// version linked in, and checks every help they print (subcommands' too):
// no line over usage.Width, every flag in a group, examples at the end,
// one "usage:" style; and that --version prints the linked version.
func TestBinaries(t *testing.T) {
	const version = "v0.0.0-helptest"
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-ldflags", "-X main.version="+version, "-o", bin+"/",
		"./cmd/pongd", "./cmd/pingpong", "./cmd/hoprelay", "./cmd/hopbench")
	build.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"pongd"}, {"pingpong"}, {"hoprelay"}, {"hopbench"},
		{"hopbench", "compare"}, {"hopbench", "galera"}, {"hopbench", "attach"},
	} {
		name := strings.Join(args, " ")
		for _, h := range []string{"--help", "-h"} {
			out, err := exec.Command(filepath.Join(bin, args[0]), append(args[1:], h)...).Output()
			if err != nil {
				t.Errorf("%s %s: %v", name, h, err)
				continue
			}
			checkHelp(t, name+" "+h, string(out))
		}
		out, err := exec.Command(filepath.Join(bin, args[0]), append(args[1:], "--version")...).Output()
		if want := args[0] + " " + version + "\n"; err != nil || string(out) != want {
			t.Errorf("%s --version: %q, %v; want %q", name, out, err, want)
		}
	}
}

func checkHelp(t *testing.T, name, help string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(help, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "usage: ") {
		t.Errorf("%s: first line %q, want usage: ...", name, lines[0])
	}
	for i, l := range lines {
		if len([]rune(l)) > usage.Width {
			t.Errorf("%s: line %d is %d columns: %q", name, i+1, len([]rune(l)), l)
		}
		if strings.Contains(l, "Usage:") {
			t.Errorf("%s: line %d says Usage:, not usage:", name, i+1)
		}
	}
	if strings.Contains(help, "\nOther options:\n") {
		t.Errorf("%s: flags in no group:\n%s", name, help)
	}
	ex := strings.Index(help, "\nExamples:\n")
	if ex < 0 || strings.Count(help[ex:], "\n  "+strings.Fields(name)[0]) < 2 {
		t.Errorf("%s: want two examples or more at the end:\n%s", name, help)
	}
	for _, flag := range []string{"--help", "--version"} {
		if !strings.Contains(help, flag) {
			t.Errorf("%s: no %s", name, flag)
		}
	}
}

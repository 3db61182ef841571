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
// --help fits a screen (Screen lines) with three examples or more, within
// Width columns; --help all adds every other option in a group below that
// screen, each once; hopbench help [SUBCOMMAND] is --help; and --version
// prints the linked version.
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
	output := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(bin, name), args...).Output()
		if err != nil {
			t.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		return string(out)
	}
	for _, args := range [][]string{
		{"pongd"}, {"pingpong"}, {"hoprelay"}, {"hopbench"},
		{"hopbench", "compare"}, {"hopbench", "galera"}, {"hopbench", "attach"},
	} {
		name := strings.Join(args, " ")
		screen := output(args[0], append(args[1:], "--help")...)
		checkScreen(t, name+" --help", screen)
		if h := output(args[0], append(args[1:], "-h")...); h != screen {
			t.Errorf("%s -h differs from --help", name)
		}
		if args[0] == "hopbench" {
			if h := output("hopbench", append([]string{"help"}, args[1:]...)...); h != screen {
				t.Errorf("hopbench help %s differs from %s --help:\n%s", strings.Join(args[1:], " "), name, h)
			}
		}
		all := output(args[0], append(args[1:], "--help", "all")...)
		checkAll(t, name+" --help all", screen, all)
		if eq := output(args[0], append(args[1:], "--help=all")...); eq != all {
			t.Errorf("%s --help=all differs from --help all", name)
		}
		out := output(args[0], append(args[1:], "--version")...)
		if want := args[0] + " " + version + "\n"; out != want {
			t.Errorf("%s --version: %q; want %q", name, out, want)
		}
	}
	// The usage names every subcommand, and how to get its help.
	top := output("hopbench", "--help")
	for _, sub := range []string{"hopbench attach ", "hopbench compare ", "hopbench galera ", "hopbench help "} {
		if !strings.Contains(top, "\n       "+sub) {
			t.Errorf("hopbench --help: no usage line for %q:\n%s", sub, top)
		}
	}
}

// Screen is how many lines --help may print: one terminal's screen.
const Screen = 40

// checkScreen checks one --help: a usage line first, within Screen lines
// and usage.Width columns, three examples or more, --help and --version,
// and, when options are left to --help all, a line saying which.
func checkScreen(t *testing.T, name, help string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(help, "\n"), "\n")
	if len(lines) > Screen {
		t.Errorf("%s: %d lines, want %d at most:\n%s", name, len(lines), Screen, help)
	}
	if !strings.HasPrefix(lines[0], "usage: ") {
		t.Errorf("%s: first line %q, want usage: ...", name, lines[0])
	}
	checkWidth(t, name, lines)
	ex := strings.Index(help, "\nExamples:\n")
	if ex < 0 || strings.Count(help[ex:], "\n  "+strings.Fields(name)[0]) < 3 {
		t.Errorf("%s: want three examples or more:\n%s", name, help)
	}
	for _, flag := range []string{"--help", "--version"} {
		if !strings.Contains(help, flag) {
			t.Errorf("%s: no %s", name, flag)
		}
	}
	if strings.Contains(help, "\nOther options:\n") {
		t.Errorf("%s: flags in no group:\n%s", name, help)
	}
}

// checkAll checks --help all against --help's screen: the screen first
// (without its line naming the groups it leaves out), then the groups,
// every option in one group and once, none left ungrouped.
func checkAll(t *testing.T, name, screen, all string) {
	t.Helper()
	head, _, _ := strings.Cut(screen, "\nMore options (")
	if !strings.HasPrefix(all, head) {
		t.Errorf("%s does not begin with --help's screen:\n%s", name, all)
	}
	lines := strings.Split(strings.TrimSuffix(all, "\n"), "\n")
	checkWidth(t, name, lines)
	if n := strings.Count(head, "\n"); n > Screen {
		t.Errorf("%s: %d lines before its first group of options, want %d at most", name, n, Screen)
	}
	if strings.Contains(screen, "\nMore options (") && !strings.Contains(all[len(head):], ":\n      --") {
		t.Errorf("%s: --help leaves options out, and --help all adds none", name)
	}
	if strings.Contains(all, "\nOther options:\n") {
		t.Errorf("%s: flags in no group:\n%s", name, all)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(l, "  -") && !strings.HasPrefix(l, "      --") {
			continue
		}
		opt := strings.TrimSuffix(f[0], ",")
		if strings.HasPrefix(opt, "-") && !strings.HasPrefix(opt, "--") && len(f) > 1 {
			opt = f[1]
		}
		if seen[opt] {
			t.Errorf("%s: %s printed twice", name, opt)
		}
		seen[opt] = true
	}
}

func checkWidth(t *testing.T, name string, lines []string) {
	t.Helper()
	for i, l := range lines {
		if len([]rune(l)) > usage.Width {
			t.Errorf("%s: line %d is %d columns: %q", name, i+1, len([]rune(l)), l)
		}
		if strings.Contains(l, "Usage:") {
			t.Errorf("%s: line %d says Usage:, not usage:", name, i+1)
		}
	}
}

package usage

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/internal/cli"
)

// A flag no group names is still printed, under a heading the binaries'
// test refuses; a group naming a flag the set lacks is an error; a long
// description wraps within Width.
func TestWrite(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("a", "", strings.Repeat("word ", 40))
	fs.Bool("forgotten", false, "in no group")
	var b strings.Builder
	if err := (Help{Usage: []string{"x"}, Groups: []Group{Section("A", "a")}}).Write(&b, fs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Other options:\n      --forgotten") {
		t.Errorf("ungrouped flag hidden:\n%s", b.String())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if len(l) > Width {
			t.Errorf("%d columns: %q", len(l), l)
		}
	}
	if err := (Help{Groups: []Group{Section("A", "nosuch")}}).Write(&b, fs); err == nil {
		t.Error("a group naming a flag the set lacks printed")
	}
	if Version("") != "devel" || Version("v1") != "v1" {
		t.Errorf("Version: %q %q", Version(""), Version("v1"))
	}
}

// --help shows First and the examples, then names the groups left out;
// --help all, -h all and --help=all add them after the examples; a
// value --help does not take is a usage error.
func TestHelpAll(t *testing.T) {
	h := Help{
		Usage:    []string{"x [options]"},
		First:    []string{"a"},
		Groups:   []Group{Section("More", "b")},
		Examples: []string{"x --a 1"},
	}
	parse := func(args ...string) (string, error) {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("a", 0, "the first")
		fs.Int("b", 0, "the second")
		var b strings.Builder
		err := Parse(fs, &h, "", args, &b)
		return b.String(), err
	}
	screen, err := parse("--help")
	if err != pflag.ErrHelp {
		t.Fatalf("--help: %v", err)
	}
	want := "usage: x [options]\n\nOptions:\n      --a N                   the first\n" +
		"  -h, --help                  print this help and exit; --help all: every option\n" +
		"      --version               print the version and exit\n\nExamples:\n  x --a 1\n\n" +
		"More options (x --help all): More.\n"
	if screen != want {
		t.Errorf("--help:\n%s\nwant:\n%s", screen, want)
	}
	head, _, _ := strings.Cut(want, "\nMore options")
	wantAll := head + "\nMore:\n      --b N                   the second\n"
	for _, args := range [][]string{{"--help", "all"}, {"-h", "all"}, {"--help=all"}} {
		if all, err := parse(args...); all != wantAll || err != pflag.ErrHelp {
			t.Errorf("%v: %v\n%s\nwant:\n%s", args, err, all, wantAll)
		}
	}
	if _, err := parse("--help=some"); err == nil || !cli.IsUsage(err) || !strings.Contains(err.Error(), `--help "some": want all`) {
		t.Errorf("--help=some: %v", err)
	}
}

// A mistyped option is answered with the one meant and what was typed;
// a value of the wrong type names its flag and value as every other bad
// value does.
func TestParseError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--run", "3"}, "unknown option --run; did you mean --runs?"},
		{[]string{"--rounds", "3"}, "unknown option --rounds; did you mean --runs?"},
		{[]string{"--treads", "3"}, "unknown option --treads; did you mean --threads?"},
		{[]string{"--bogus"}, "unknown option --bogus (x --help all lists every option)"},
		{[]string{"-runs", "3"}, "-runs: a long option takes two dashes: --runs"},
		{[]string{"-z"}, "unknown option -z (x --help all lists every option)"},
		{[]string{"--runs", "x"}, `--runs "x": must be an integer`},
		{[]string{"--time", "3"}, `--time "3": must be a duration`},
	} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("runs", 1, "")
		fs.String("threads", "", "")
		fs.Duration("time", 0, "")
		fs.Bool("trace", false, "")
		err := Parse(fs, &Help{}, "", tc.args, io.Discard)
		if err == nil || !cli.IsUsage(err) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: %v; want a usage error beginning %q", tc.args, err, tc.want)
		}
	}
}

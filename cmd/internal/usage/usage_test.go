package usage

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
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

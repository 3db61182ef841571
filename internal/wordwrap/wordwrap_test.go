package wordwrap

import (
	"slices"
	"testing"
)

func TestLines(t *testing.T) {
	for _, c := range []struct {
		name, s, indent string
		width           int
		want            []string
	}{
		{"empty", "", "  ", 10, []string{""}},
		{"blanks only", "   ", "  ", 10, []string{""}},
		{"fits", "one two", "", 10, []string{"one two"}},
		{"exact width", "one two", "", 7, []string{"one two"}},
		{"breaks", "one two three", "", 7, []string{"one two", "three"}},
		{"indent counts", "one two three four", "    ", 11, []string{"one two", "    three", "    four"}},
		{"lead kept", "  one two three four", "    ", 11, []string{"  one two", "    three", "    four"}},
		{"long word alone", "a verylongword b", "", 5, []string{"a", "verylongword", "b"}},
		{"blanks fold", "a  b\n c", "", 10, []string{"a b c"}},
		{"runes, not bytes", "µs µs µs", "", 5, []string{"µs µs", "µs"}},
	} {
		if got := Lines(c.s, c.width, c.indent); !slices.Equal(got, c.want) {
			t.Errorf("%s: Lines(%q, %d, %q) = %q, want %q", c.name, c.s, c.width, c.indent, got, c.want)
		}
	}
}

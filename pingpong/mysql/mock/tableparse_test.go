package mock

import "testing"

func TestLookupKeyword(t *testing.T) {
	for k, name := range keywordNames {
		if name == "" {
			continue
		}
		lower := []byte(name)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		if got := lookupKeyword([]byte(name)); got != keyword(k) {
			t.Errorf("lookupKeyword(%q) = %d, want %d", name, got, k)
		}
		if got := lookupKeyword(lower); got != keyword(k) {
			t.Errorf("lookupKeyword(%q) = %d, want %d", lower, got, k)
		}
		if got := lookupKeyword(append([]byte(name), 'X')); got != kwNone {
			t.Errorf("lookupKeyword(%sX) = %d, want none", name, got)
		}
	}
	for _, w := range []string{"", "c", "id", "sbtest1", "k", "pad", "SELECTS", "FRO"} {
		if got := lookupKeyword([]byte(w)); got != kwNone {
			t.Errorf("lookupKeyword(%q) = %d, want none", w, got)
		}
	}
}

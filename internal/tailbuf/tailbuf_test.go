package tailbuf

import (
	"strings"
	"sync"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		max    int
		writes []string
		want   string
	}{
		{8, nil, "(empty)"},
		{8, []string{" \n\t "}, "(empty)"},
		{8, []string{"abc"}, "abc"},
		{8, []string{"abc", "def"}, "abcdef"},
		{8, []string{"abcdef", "ghij"}, "cdefghij"},
		{4, []string{"a very long line"}, "line"},
		{64, []string{"one\ntwo\n", "three\n"}, "one | two | three"},
		{6, []string{"one\ntwo\nthree\n"}, "three"},
	} {
		b := New(tc.max)
		for _, w := range tc.writes {
			if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
			}
		}
		if got := b.String(); got != tc.want {
			t.Errorf("max %d, writes %q: String() = %q, want %q", tc.max, tc.writes, got, tc.want)
		}
	}
}

// TestConcurrent writes from several goroutines while another reads, as
// os/exec's copying goroutines and an error path do (run with -race); no
// byte is lost from the last writes and the size bound holds.
func TestConcurrent(t *testing.T) {
	const max, writers, each = 100, 4, 500
	b := New(max)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line := []byte{byte('a' + w)}
			for range each {
				b.Write(line)
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range each {
			if s := b.String(); len(s) > max {
				t.Errorf("String() holds %d bytes, want at most %d", len(s), max)
				return
			}
		}
	}()
	wg.Wait()
	<-done
	s := b.String()
	if len(s) != max || strings.Trim(s, "abcd") != "" {
		t.Errorf("after %d writes: String() = %q (%d bytes), want %d bytes of a..d", writers*each, s, len(s), max)
	}
}

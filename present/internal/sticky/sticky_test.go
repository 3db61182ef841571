package sticky

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// failAfter accepts n writes and fails every one after them.
type failAfter struct {
	n   int
	buf bytes.Buffer
}

var errFull = errors.New("full")

func (f *failAfter) Write(b []byte) (int, error) {
	if f.n == 0 {
		return 0, errFull
	}
	f.n--
	return f.buf.Write(b)
}

func TestWriterKeepsTheFirstError(t *testing.T) {
	dst := &failAfter{n: 2}
	s := New(dst)
	s.Printf("a%d\n", 1)
	s.Do(func(w io.Writer) error { _, err := io.WriteString(w, "b\n"); return err })
	s.Printf("c\n")
	other := errors.New("other")
	s.Do(func(io.Writer) error { return other })
	if n, err := s.Write([]byte("d\n")); n != 0 || err != errFull {
		t.Errorf("Write after a failure = %d, %v; want 0, %v", n, err, errFull)
	}
	if s.Err() != errFull {
		t.Errorf("Err = %v, want the first error %v", s.Err(), errFull)
	}
	if got := dst.buf.String(); got != "a1\nb\n" {
		t.Errorf("written %q, want %q", got, "a1\nb\n")
	}
}

func TestWriterDoKeepsItsError(t *testing.T) {
	var b bytes.Buffer
	s := New(&b)
	bad := errors.New("template")
	s.Do(func(io.Writer) error { return bad })
	s.Printf("x")
	if s.Err() != bad || b.Len() != 0 {
		t.Errorf("Err = %v with %q written; want %v and nothing", s.Err(), b.String(), bad)
	}
}

// Package sticky is the writer present's reports are laid out through: it
// keeps the first error and writes nothing after it, so that the layout
// code writes line after line and checks once, at the end.
package sticky

import (
	"fmt"
	"io"
)

// Writer writes to its destination until a write fails; from then on
// every write returns that first error and writes nothing.
type Writer struct {
	w   io.Writer
	err error
}

// New is a Writer to w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes b unless an earlier write failed.
func (s *Writer) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(b)
	s.err = err
	return n, err
}

// Printf formats as fmt.Fprintf does and writes the result.
func (s *Writer) Printf(format string, a ...any) {
	if s.err == nil {
		fmt.Fprintf(s, format, a...)
	}
}

// Do runs write on the destination unless an earlier write failed, and
// keeps its error: for writers of whole parts, as a template's.
func (s *Writer) Do(write func(io.Writer) error) {
	if s.err == nil {
		s.err = write(s.w)
	}
}

// Err is the first error, nil while every write has succeeded.
func (s *Writer) Err() error { return s.err }

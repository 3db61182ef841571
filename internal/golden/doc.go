// Package golden compares a test's output with a file under testdata/, byte
// for byte, so that a change to any report's layout shows as a failing test
// and a reviewable diff of the file. Only tests import it.
//
// It imports testing and the standard library only.
package golden

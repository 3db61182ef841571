package hgrm_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/hoplat/hoplat/present/hgrm"
	"github.com/hoplat/hoplat/stats"
)

// One round trip of 25 µs: the table's first line and the trailer, in
// microseconds.
func ExampleWrite() {
	h := stats.NewHistogram()
	h.Record(25_000)
	var b strings.Builder
	if err := hgrm.Write(&b, h); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	s := bufio.NewScanner(strings.NewReader(b.String()))
	for s.Scan() {
		if l := s.Text(); strings.HasPrefix(l, "#[Max") || strings.HasPrefix(l, "      25.007 0.000") {
			fmt.Println(l)
		}
	}
	// Output:
	//       25.007 0.000000000000          1           1.00
	// #[Max     =       25.007, Total count    =            1]
}

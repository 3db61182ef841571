package leak

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFinishNamesAnFDLeak(t *testing.T) {
	c := Start("leaktest")
	c.settle = 100 * time.Millisecond // what leaks here stays
	if got := c.Finish(0, true); got != 0 {
		t.Fatalf("nothing leaked, Finish = %d", got)
	}
	// Several, so that an fd closed elsewhere meanwhile cannot hide the leak.
	var files []*os.File
	for range 3 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if got := c.Finish(0, false); got != 1 {
		t.Errorf("open files: Finish = %d, want 1", got)
	}
	if got := c.newFDs(); strings.Count(got, os.DevNull) != len(files) {
		t.Errorf("the leak names %q, want the %d %s files", got, len(files), os.DevNull)
	}
	if got := c.Finish(3, false); got != 3 {
		t.Errorf("failed tests keep their code: Finish = %d, want 3", got)
	}
	for _, f := range files {
		f.Close()
	}
}

func TestFinishNamesAGoroutineLeak(t *testing.T) {
	c := Start("leaktest")
	c.settle = 100 * time.Millisecond // what leaks here stays
	// Several, so that a goroutine of the testing framework ending
	// meanwhile cannot hide the leak from the count.
	const n = 4
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { <-stop })
	}
	if got := c.Finish(0, true); got != 1 {
		t.Errorf("%d running goroutines: Finish = %d, want 1", n, got)
	}
	close(stop)
	wg.Wait()
}

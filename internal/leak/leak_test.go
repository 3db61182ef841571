package leak

import (
	"os"
	"testing"
)

func TestFinishNamesAnFDLeak(t *testing.T) {
	c := Start("leaktest")
	if got := c.Finish(0, true); got != 0 {
		t.Fatalf("nothing leaked, Finish = %d", got)
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Finish(0, false); got != 1 {
		t.Errorf("an open file: Finish = %d, want 1", got)
	}
	if got := c.Finish(3, false); got != 3 {
		t.Errorf("failed tests keep their code: Finish = %d, want 3", got)
	}
	f.Close()
}

func TestFinishNamesAGoroutineLeak(t *testing.T) {
	c := Start("leaktest")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { <-stop; close(done) }()
	if got := c.Finish(0, true); got != 1 {
		t.Errorf("a running goroutine: Finish = %d, want 1", got)
	}
	close(stop)
	<-done
}

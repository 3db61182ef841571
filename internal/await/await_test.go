package await

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A file written by another goroutine after the wait began is seen.
func TestFileWrittenLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	written := make(chan error, 1)
	checks := 0
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Poll(ctx, nil, 20*time.Millisecond, func() bool {
		checks++
		if checks == 3 {
			written <- os.WriteFile(path, nil, 0o644)
		}
		_, err := os.Stat(path)
		return err == nil
	})
	if err != nil || checks != 3 {
		t.Fatalf("poll: %v after %d checks; want nil after 3", err, checks)
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if err := File(ctx, path, nil); err != nil {
		t.Errorf("file: %v", err)
	}
}

func TestPollEnds(t *testing.T) {
	never := func() bool { return false }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Poll(ctx, nil, time.Millisecond, never); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	exited := make(chan struct{})
	close(exited)
	if err := Poll(context.Background(), exited, time.Millisecond, never); !errors.Is(err, ErrExited) {
		t.Errorf("exited: %v", err)
	}
	calls := 0
	if err := Poll(context.Background(), exited, time.Millisecond, func() bool { calls++; return true }); err != nil || calls != 1 {
		t.Errorf("ready at once: %v, %d calls", err, calls)
	}
}

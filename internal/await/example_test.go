package await_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hoplat/hoplat/internal/await"
)

// File returns once the file is there, and ErrExited when the process that
// should write it is gone first.
func ExampleFile() {
	dir, _ := os.MkdirTemp("", "await")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "stats.json")
	os.WriteFile(path, []byte("{}"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Println(await.File(ctx, path, nil))

	exited := make(chan struct{})
	close(exited)
	err := await.File(ctx, filepath.Join(dir, "never"), exited)
	fmt.Println(errors.Is(err, await.ErrExited))
	// Output:
	// <nil>
	// true
}

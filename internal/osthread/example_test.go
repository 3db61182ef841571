package osthread_test

import (
	"errors"
	"fmt"

	"github.com/hoplat/hoplat/internal/osthread"
)

// f reports whether it restored its thread: a failure that left the thread
// changed keeps it locked, and the runtime ends it.
func Example() {
	n, err := osthread.Run(func() (int, error, bool) {
		return 0, errors.New("setns: operation not permitted"), true
	})
	fmt.Println(n, err)
	// Output:
	// 0 setns: operation not permitted
}

package affinity

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// childEnv makes the test binary a child for the process tests: it parks
// childThreads goroutines on threads of their own, says "ready", and exits
// when its stdin closes.
const (
	childEnv     = "HOPLAT_AFFINITY_TEST_CHILD"
	childThreads = 3
)

// TestMain fails the package if its tests leave file descriptors open
// (the children's pipes among them).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		child()
	}
	os.Exit(testmain.Run(m, testmain.Config{Package: "affinity", Goroutines: true}))
}

func child() {
	park := make(chan struct{})
	parked := make(chan struct{})
	for range childThreads {
		go func() {
			runtime.LockOSThread()
			parked <- struct{}{}
			<-park
		}()
	}
	for range childThreads {
		<-parked
	}
	fmt.Println("ready")
	io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	os.Exit(0)
}

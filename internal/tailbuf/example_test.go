package tailbuf_test

import (
	"fmt"
	"os/exec"

	"github.com/hoplat/hoplat/internal/tailbuf"
)

// A child's stderr goes to a Buffer; an error quotes its last lines.
func Example() {
	cmd := exec.Command("sh", "-c", "echo starting >&2; echo 'bind: address in use' >&2; exit 1")
	stderr := tailbuf.New(4096)
	cmd.Stderr = stderr
	err := cmd.Run()
	fmt.Printf("%v (stderr: %s)\n", err, stderr)
	// Output:
	// exit status 1 (stderr: starting | bind: address in use)
}

package testmain_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// leakEnv makes the test binary a package whose one test leaves a
// listener open (TestLeavesAListener), run through Run.
const leakEnv = "HOPLAT_TESTMAIN_LEAK"

func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "testmain", Goroutines: true}))
}

var left net.Listener

func TestLeavesAListener(t *testing.T) {
	if os.Getenv(leakEnv) == "" {
		t.Skip("run as the leaking package by TestRunFailsALeak")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	left = ln
}

// Run fails a package whose tests all passed but left an fd open, and
// says how many it found.
func TestRunFailsALeak(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeavesAListener$", "-test.count=1")
	cmd.Env = append(os.Environ(), leakEnv+"=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("%v, want exit status 1\n%s", err, out)
	}
	if want := "testmain: tests leaked 1 file descriptors"; !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

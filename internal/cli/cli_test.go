package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

func TestMain(m *testing.M) {
	// os/signal starts its one delivery goroutine at the first Notify and
	// keeps it for the life of the process: start it before counting, as
	// the leak check does the netpoller.
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT)
	signal.Stop(c)
	os.Exit(testmain.Run(m, testmain.Config{Package: "cli", Goroutines: true}))
}

func TestReport(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
		code int
	}{
		{Usage(errors.New("--threads 0: want at least 1")), "pongd: --threads 0: want at least 1\n", ExitUsage},
		{fmt.Errorf("wrapped: %w", Usage(errors.New("bad"))), "pongd: wrapped: bad\n", ExitUsage},
		{errors.New("pongd: dial: refused"), "pongd: dial: refused\n", 1},
		{fmt.Errorf("pongd: %w", errors.New("pongd: out dir: denied")), "pongd: out dir: denied\n", 1},
		{fmt.Errorf("%w; stopped", Interrupted{syscall.SIGTERM}), "pongd: interrupted by SIGTERM; stopped\n", 143},
		{Interrupted{syscall.SIGINT}, "pongd: interrupted by SIGINT\n", 130},
	} {
		var b bytes.Buffer
		if code := report(&b, "pongd", tc.err); code != tc.code || b.String() != tc.want {
			t.Errorf("report(%v) = %d %q, want %d %q", tc.err, code, b.String(), tc.code, tc.want)
		}
	}
}

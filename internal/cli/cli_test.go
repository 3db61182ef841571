package cli

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestReport(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
		code int
	}{
		{Usage(errors.New("--threads 0: want at least 1")), "pongd: --threads 0: want at least 1\n", ExitUsage},
		{fmt.Errorf("wrapped: %w", Usage(errors.New("bad"))), "pongd: wrapped: bad\n", ExitUsage},
		{errors.New("pongd: dial: refused"), "pongd: dial: refused\n", 1},
	} {
		var b bytes.Buffer
		if code := report(&b, "pongd", tc.err); code != tc.code || b.String() != tc.want {
			t.Errorf("report(%v) = %d %q, want %d %q", tc.err, code, b.String(), tc.code, tc.want)
		}
	}
}

package hosts

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A readiness line whose address does not parse is named in Listening's
// error (ErrBadReadinessLine), not written into the process's stderr.
func TestBadReadinessLineInError(t *testing.T) {
	p := start(t, "garbled", "echo 'listening nowhere:at:all'; exit 3")
	_, err := p.Listening(context.Background(), 1, 10*time.Second)
	if !errors.Is(err, ErrBadReadinessLine) || !strings.Contains(err.Error(), `"listening nowhere:at:all"`) {
		t.Fatalf("error %v should wrap the bad readiness line", err)
	}
	if !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("error %v should still carry the exit status", err)
	}
	if s := p.Stderr(); strings.Contains(s, "readiness") {
		t.Errorf("stderr %q holds hoplat's own words", s)
	}
}

package tracer

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/peer"
)

// openOrSkip opens a tracer, or skips (fails under
// HOPLAT_REQUIRE_INTEGRATION) where this machine cannot run one.
func openOrSkip(t *testing.T, cfg Config) *Tracer {
	t.Helper()
	if os.Geteuid() != 0 {
		peer.Unavailable(t, "tracer: needs root")
	}
	tr, err := Open(cfg)
	if errors.Is(err, errors.ErrUnsupported) {
		peer.Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func TestCalibrate(t *testing.T) {
	tr := openOrSkip(t, Config{})
	d, err := tr.Calibrate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("per event %v (wake-up tracepoint %s)", d, tr.objs.wakeup)
}

package phrase

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

// signalCause is a cancellation cause that names its signal, as
// cli.Interrupted does.
type signalCause string

func (s signalCause) Error() string      { return "interrupted by " + string(s) }
func (s signalCause) SignalName() string { return string(s) }

// Stop words a stopped run as the driver's reason did before the stop
// was typed: the signal or the cause, the rounds, the stage and its
// regime when there are several, and the phase past the rounds.
func TestStop(t *testing.T) {
	for _, c := range []struct {
		stop hop.Stop
		want string
	}{
		{hop.Stop{Cause: signalCause("SIGINT"), Round: 3, Rounds: 11, Stages: 1},
			"interrupted by SIGINT after round 3 of 11"},
		{hop.Stop{Cause: signalCause("SIGTERM"), Round: 2, Rounds: 5, Stage: 0, Stages: 3, Regime: "packed"},
			"interrupted by SIGTERM after round 2 of 5 in stage 1 of 3 (packed)"},
		{hop.Stop{Cause: signalCause("SIGINT"), Round: 0, Rounds: 5, Stage: 1, Stages: 2},
			"interrupted by SIGINT after round 0 of 5 in stage 2 of 2"},
		{hop.Stop{Cause: context.Canceled, Round: 4, Rounds: 4, Stages: 1, Regime: "packed", Phase: hop.PhaseTraced},
			"stopped (context canceled) after round 4 of 4, in the traced rounds"},
		{hop.Stop{Cause: fmt.Errorf("wrapped: %w", signalCause("SIGINT")), Round: 5, Rounds: 5, Stage: 1, Stages: 2,
			Regime: "spread", Phase: hop.PhaseConnect},
			"interrupted by SIGINT after round 5 of 5 in stage 2 of 2 (spread), in the connect-only series"},
		{hop.Stop{Cause: signalCause("SIGINT"), Rounds: 5, Stages: 1, Phase: hop.PhaseStarting},
			"interrupted by SIGINT after round 0 of 5, in starting the components"},
		{hop.Stop{Cause: signalCause("SIGINT"), Rounds: 5, Stages: 1, Phase: hop.PhaseSizing},
			"interrupted by SIGINT after round 0 of 5, in sizing the rounds"},
		{hop.Stop{Cause: errors.New("deadline"), Round: 7, Rounds: 7, Stages: 1, Phase: hop.PhaseTracerFloor},
			"stopped (deadline) after round 7 of 7, in the tracer's floor"},
	} {
		if got := Stop(c.stop); got != c.want {
			t.Errorf("Stop(%+v) = %q, want %q", c.stop, got, c.want)
		}
	}
}

// Fill words a report's Stop in PartialReason, and leaves the reason of
// a report read back from JSON (no Stop) as it is.
func TestFillStop(t *testing.T) {
	rep := &hop.Report{Partial: true, Stop: &hop.Stop{Cause: signalCause("SIGINT"), Round: 3, Rounds: 11, Stages: 1}}
	Fill(rep)
	if want := "interrupted by SIGINT after round 3 of 11"; rep.PartialReason != want {
		t.Errorf("filled: %q, want %q", rep.PartialReason, want)
	}
	read := &hop.Report{Partial: true, PartialReason: "interrupted by SIGTERM after round 1 of 2"}
	Fill(read)
	if want := "interrupted by SIGTERM after round 1 of 2"; read.PartialReason != want {
		t.Errorf("read from JSON: %q, want %q kept", read.PartialReason, want)
	}
}

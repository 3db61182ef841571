package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
)

// endpointRounds samples, round by round, the responder's CPU time, so
// that each path's rounds get its own: the responder serves every path of
// a stage, and the paths' rounds interleave. The client's comes with each
// round's sample (Sample.CPU), one process per round.
//
// The responder's reading is its process CPU clock (affinity.ProcessClock),
// exact to the nanosecond and counting the threads that exited: pongd,
// given --cpus as every placed regime gives it, locks each connection's
// goroutine to a thread it pins and never unlocks it, so that thread ends
// with the connection, at every round's end. Summing the live threads'
// schedstat, as the relays' reading does, would lose each round's
// connection threads; the thread group's utime+stime in /proc/PID/stat
// keeps them but counts 10 ms ticks, of the order of a µs per request over
// a round.
type endpointRounds struct {
	roundReads[time.Duration, serverSample]
}

type serverSample struct {
	cpu time.Duration
	ok  bool
}

func newEndpointRounds(cells, rounds int, topo *Topology, remote bool) *endpointRounds {
	pid := 0
	e := &endpointRounds{newRoundReads(cells, rounds,
		func() (time.Duration, error) { return affinity.ProcessClock(pid) },
		func(now, base time.Duration) serverSample { return serverSample{cpu: now - base, ok: true} })}
	switch {
	case remote:
		e.err = errors.New("a topology run's client and server may run on other hosts")
	case topo.server == nil:
		e.err = errors.New("the server is not a process this run started")
	default:
		pid = topo.server.PID()
	}
	return e
}

// begin reads the responder before a round; end after it, and keeps the
// difference for the round.
func (e *endpointRounds) begin(_ context.Context, cell, _ int) { e.roundReads.begin(cell) }

func (e *endpointRounds) end(_ context.Context, cell, round int, _ hop.Sample) error {
	e.roundReads.end(cell, round)
	return nil
}

// perRequest sets every series' Endpoints: the client's and the server's
// CPU time over its kept rounds per request, counting each round's
// requests with its warm-up (round is the length with it), as
// relayRounds does. The client's also holds its start-up, which the
// direct baseline's holds as much of: hop subtracts the baseline's.
func (e *endpointRounds) perRequest(series []CellRounds, discard int, round time.Duration) {
	for i := range series {
		s := &series[i]
		var client, server time.Duration
		n := 0.0
		why := ""
		for r, smp := range s.Samples {
			if r < discard || smp.Failed != "" {
				continue
			}
			if smp.CPU <= 0 && why == "" {
				why = "client CPU not read"
			}
			client += smp.CPU
			server += e.ran[i][r].cpu
			if !e.ran[i][r].ok && e.err == nil && why == "" {
				why = "server CPU not read"
			}
			n += smp.TPS * round.Seconds()
		}
		switch {
		case e.err != nil:
			why = fmt.Sprintf("server CPU not read: %v", e.err)
		case n <= 0:
			why = "no kept round with requests"
		}
		if why != "" {
			s.Endpoints = &hop.Endpoints{Error: why}
			continue
		}
		s.Endpoints = &hop.Endpoints{ClientCPUUs: float64(client) / 1e3 / n, ServerCPUUs: float64(server) / 1e3 / n}
	}
}

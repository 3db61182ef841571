package tracertest

import (
	"encoding/json"
	"errors"
	"fmt"
)

// CheckWaterfall checks what ui.perfetto.dev and chrome://tracing need of
// a trace.json: every slice closed (a duration, not negative), slices on
// one track in time order and not overlapping, every track named by
// metadata events, every flow one start and one finish in that order, and
// each flow point inside a slice of its track. It returns the slices and
// flows counted, and every fault found.
func CheckWaterfall(data []byte) (slices, flows int, err error) {
	var file struct {
		TraceEvents []struct {
			Name string   `json:"name"`
			Ph   string   `json:"ph"`
			Ts   float64  `json:"ts"`
			Dur  *float64 `json:"dur"`
			Pid  int      `json:"pid"`
			Tid  int      `json:"tid"`
			ID   int      `json:"id"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return 0, 0, fmt.Errorf("tracertest: trace.json: %w", err)
	}
	type track struct{ pid, tid int }
	type slice struct{ ts, end float64 }
	type flow struct {
		s, f   int
		ts, tf float64
	}
	type point struct {
		tr track
		ts float64
	}
	last := map[track]slice{}
	all := map[track][]slice{}
	procs, threads := map[int]bool{}, map[track]bool{}
	fl := map[int]*flow{}
	var points []point
	var errs []error
	for _, e := range file.TraceEvents {
		tr := track{e.Pid, e.Tid}
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name":
				procs[e.Pid] = true
			case "thread_name":
				threads[tr] = true
			}
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				errs = append(errs, fmt.Errorf("slice %q at %v on %v not closed (dur %v)", e.Name, e.Ts, tr, e.Dur))
				continue
			}
			if p, ok := last[tr]; ok && e.Ts < p.end-1e-6 {
				errs = append(errs, fmt.Errorf("slice %q at %v on %v before the end of the last one (%v)", e.Name, e.Ts, tr, p.end))
			}
			last[tr] = slice{e.Ts, e.Ts + *e.Dur}
			all[tr] = append(all[tr], last[tr])
			slices++
		case "s", "f":
			f := fl[e.ID]
			if f == nil {
				f = &flow{}
				fl[e.ID] = f
			}
			if e.Ph == "s" {
				f.s++
				f.ts = e.Ts
			} else {
				f.f++
				f.tf = e.Ts
			}
			points = append(points, point{tr, e.Ts})
		default:
			errs = append(errs, fmt.Errorf("event %q of phase %q", e.Name, e.Ph))
		}
	}
	for tr := range all {
		if !procs[tr.pid] || !threads[tr] {
			errs = append(errs, fmt.Errorf("track %v not named", tr))
		}
	}
	for id, f := range fl {
		if f.s != 1 || f.f != 1 || f.tf < f.ts {
			errs = append(errs, fmt.Errorf("flow %d: %d starts, %d finishes, at %v and %v", id, f.s, f.f, f.ts, f.tf))
		}
	}
	for _, p := range points {
		in := false
		for _, s := range all[p.tr] {
			if p.ts >= s.ts && p.ts <= s.end {
				in = true
				break
			}
		}
		if !in {
			errs = append(errs, fmt.Errorf("flow point at %v on %v in no slice", p.ts, p.tr))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return slices, len(fl), fmt.Errorf("tracertest: %w", err)
	}
	return slices, len(fl), nil
}

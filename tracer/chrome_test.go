package tracer

import (
	"bytes"
	"encoding/json"
	"testing"
)

// checkWaterfall checks what a viewer needs of a trace.json: every slice
// closed (a duration, not negative), every flow's start paired with one
// finish of the same id, later than it, each inside a slice of its own
// track, slices in time order and apart on each track, every track named.
func checkWaterfall(t testing.TB, data []byte) (slices, flows int) {
	t.Helper()
	var file struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Ph   string          `json:"ph"`
			Ts   float64         `json:"ts"`
			Dur  *float64        `json:"dur"`
			Pid  int             `json:"pid"`
			Tid  int             `json:"tid"`
			ID   int             `json:"id"`
			Bp   string          `json:"bp"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("trace.json: %v", err)
	}
	type track struct{ pid, tid int }
	type slice struct{ ts, end float64 }
	last := map[track]slice{}
	all := map[track][]slice{}
	procs, threads := map[int]bool{}, map[track]bool{}
	type flow struct {
		s, f   int
		ts, tf float64
		ok     bool
	}
	fl := map[int]*flow{}
	var points []struct {
		tr track
		ts float64
	}
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
				t.Fatalf("slice %q at %v on %v not closed (dur %v)", e.Name, e.Ts, tr, e.Dur)
			}
			if p, ok := last[tr]; ok && e.Ts < p.end-1e-6 {
				t.Fatalf("slice %q at %v on %v before the end of the last one (%v)", e.Name, e.Ts, tr, p.end)
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
			points = append(points, struct {
				tr track
				ts float64
			}{tr, e.Ts})
		default:
			t.Fatalf("event of phase %q", e.Ph)
		}
	}
	for tr := range all {
		if !procs[tr.pid] || !threads[tr] {
			t.Errorf("track %v not named", tr)
		}
	}
	for id, f := range fl {
		if f.s != 1 || f.f != 1 || f.tf < f.ts {
			t.Errorf("flow %d: %d starts, %d finishes, at %v and %v", id, f.s, f.f, f.ts, f.tf)
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
			t.Errorf("flow point at %v on %v in no slice", p.ts, p.tr)
		}
	}
	return slices, len(fl)
}

func TestWaterfall(t *testing.T) {
	var w Waterfall
	n := 0
	for name, ev := range map[string][]Event{"direct": directPacked(4), "spread": relaySpread(4), "packed": relayPacked(4)} {
		for _, r := range Assemble(Config{Components: components}, ev, 5) {
			w.Add(name, &r)
			n += len(r.Segments)
		}
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	slices, flows := checkWaterfall(t, b.Bytes())
	if slices != n || flows == 0 {
		t.Errorf("%d slices for %d segments, %d flows", slices, n, flows)
	}
}

func TestWaterfallEmpty(t *testing.T) {
	var b bytes.Buffer
	if _, err := new(Waterfall).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "{\"traceEvents\":[],\"displayTimeUnit\":\"ns\"}\n" {
		t.Errorf("empty waterfall %q", got)
	}
}

package tracer

import (
	"encoding/json"
	"fmt"
	"io"
)

// Waterfall collects requests for one file in the Chrome trace-event
// format (trace.json), which ui.perfetto.dev and chrome://tracing open as
// it is: one track per component thread, named by metadata events; an X
// slice per segment, ts and dur in µs; a flow (s, f sharing an id) from
// the waker's track to the woken one's for each message between them.
// Requests are laid out one after the other on a common time line, a gap
// apart, each labelled (e.g. "epoll tcp->tcp packed p99"). The zero value
// is ready to use.
type Waterfall struct {
	events []chromeEvent
	tracks map[trackKey]int // (label, component) → pid
	named  map[[2]int]bool  // (pid, tid) whose thread_name is written
	at     float64          // where the next request starts, µs
	flows  int
}

// waterfallGap separates two requests on the time line, in µs.
const waterfallGap = 20

type trackKey struct{ label, component string }

// chromeEvent is one trace event (the Trace Event Format's JSON object).
type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   int            `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

func (w *Waterfall) track(label, component string) int {
	if w.tracks == nil {
		w.tracks, w.named = map[trackKey]int{}, map[[2]int]bool{}
	}
	if component == "" {
		component = "unexplained"
	}
	k := trackKey{label, component}
	pid, ok := w.tracks[k]
	if !ok {
		pid = len(w.tracks) + 1
		w.tracks[k] = pid
		w.events = append(w.events, chromeEvent{Name: "process_name", Ph: "M", Pid: pid,
			Args: map[string]any{"name": label + " · " + component}})
	}
	return pid
}

func (w *Waterfall) thread(pid, tid int) {
	if w.named[[2]int{pid, tid}] {
		return
	}
	w.named[[2]int{pid, tid}] = true
	name := fmt.Sprintf("tid %d", tid)
	if tid == 0 {
		name = "no task"
	}
	w.events = append(w.events, chromeEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid,
		Args: map[string]any{"name": name}})
}

// Add lays out one request's segments under label.
func (w *Waterfall) Add(label string, r *Request) {
	base := w.at
	us := func(t uint64) float64 { return base + float64(t-r.Start)/1e3 }
	for i := range r.Segments {
		g := &r.Segments[i]
		pid := w.track(label, g.Component)
		w.thread(pid, g.Tid)
		dur := float64(g.End-g.Start) / 1e3
		args := map[string]any{"cpu": g.CPU, "events": g.Events, "tracer_us": g.Tracer.Seconds() * 1e6}
		if g.By != 0 {
			args["woken_by"] = g.By
		}
		if g.Behind != 0 {
			args["behind"] = g.Behind
		}
		w.events = append(w.events, chromeEvent{Name: g.Kind.String(), Cat: "segment", Ph: "X",
			Ts: us(g.Start), Dur: &dur, Pid: pid, Tid: g.Tid, Args: args})
		// The message's arrow, from the last slice of the component it
		// left to the first of the one it reached: at a wake-up from
		// another component (the critical path), or where one CPU passes
		// straight from one component's running to another's (the holder
		// view of a packed request, Config.ChargeHolder).
		if i == 0 {
			continue
		}
		p := &r.Segments[i-1]
		waiting := func(k SegmentKind) bool { return k == SegRunnable || k == SegIdleExit || k == SegOther }
		woken := g.By != 0 && (g.Kind == SegRunnable || g.Kind == SegIdleExit)
		handed := g.By == 0 && !waiting(g.Kind) && p.CPU == g.CPU
		if !woken && !handed || waiting(p.Kind) || p.Component == g.Component {
			continue
		}
		w.flows++
		from := w.track(label, p.Component)
		pdur := float64(p.End-p.Start) / 1e3
		w.events = append(w.events,
			chromeEvent{Name: "message", Cat: "flow", Ph: "s", ID: w.flows, Pid: from, Tid: p.Tid,
				Ts: us(p.Start) + pdur/2},
			chromeEvent{Name: "message", Cat: "flow", Ph: "f", Bp: "e", ID: w.flows, Pid: pid, Tid: g.Tid,
				Ts: us(g.Start) + dur/2})
	}
	w.at = us(r.End) + waterfallGap
}

// WriteTo writes the trace as one JSON object ({"traceEvents": [...]}).
func (w *Waterfall) WriteTo(out io.Writer) (int64, error) {
	events := w.events
	if events == nil {
		events = []chromeEvent{}
	}
	b, err := json.Marshal(struct {
		TraceEvents     []chromeEvent `json:"traceEvents"`
		DisplayTimeUnit string        `json:"displayTimeUnit"`
	}{events, "ns"})
	if err != nil {
		return 0, fmt.Errorf("tracer: waterfall: %w", err)
	}
	b = append(b, '\n')
	n, err := out.Write(b)
	return int64(n), err
}

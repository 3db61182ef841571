package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hoplat/hoplat/iomodel"
	"github.com/hoplat/hoplat/pingpong/report"
)

// width is the text report's line length, as --help's (STYLE.md): a
// report pasted into an issue or a terminal reads without scrolling.
const width = 100

// config is r's configuration as the report prints it: a load client's
// with its IOReason worded from its IOChoice where it has none yet (a
// report read back from JSON has its own), anything else as given.
func config(r report.Report) any {
	c, ok := r.Config.(*report.RunConfig)
	if !ok || c.IOReason != "" {
		return r.Config
	}
	worded := *c
	worded.IOReason = ioReason(c.IOChoice)
	return &worded
}

// ioReason says what chose a run's I/O model: the model as asked, or
// Auto's rule with the counts it read.
func ioReason(c iomodel.Choice) string {
	switch {
	case !c.Auto:
		return "as asked"
	case c.Model == iomodel.Blocking:
		return fmt.Sprintf("auto: blocking, one OS thread per connection as sysbench's and sockperf's (%d connections on %d CPUs, at most %d)",
			c.Conns, c.CPUs, c.Limit)
	}
	return fmt.Sprintf("auto: netpoll, %d connections on %d CPUs are more than the %d that may each hold an OS thread (%d per CPU, at most %d)",
		c.Conns, c.CPUs, c.Limit, iomodel.AutoPerCPU, iomodel.AutoHeldMax)
}

// partialReason says what stopped a partial run and when, "interrupted
// by SIGINT after 1.2s of 10s": from its Stop, or as a report read back
// from JSON gave it.
func partialReason(r report.Report) string {
	st := r.Stop
	if st == nil {
		return r.PartialReason
	}
	return fmt.Sprintf("%v after %v of %v", st.Cause, roundDuration(st.Ran), roundDuration(st.Planned))
}

// roundDuration keeps a duration's printed form short: tenths of a second
// from one second up, milliseconds below.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// partialLine is the report's first line when it covers less than was
// asked, or "" for a complete one: the reason, and what it means for the
// figures below.
func partialLine(r report.Report) string {
	if !r.Partial {
		return ""
	}
	reason := partialReason(r)
	if reason == "" {
		reason = "stopped early"
	}
	var cut bool
	measured := false
	for _, s := range r.Steps {
		for _, run := range s.Runs {
			cut = run.Partial
			measured = true
		}
	}
	switch {
	case cut:
		reason += "; the last run is cut short"
	case !measured:
		reason += "; nothing was measured"
	default:
		reason += "; the runs shown are whole, the rest never started"
	}
	return "partial: " + reason
}

// configLines lays out a report's config as "key: value" lines, in the
// order the config marshals its fields, values aligned and wrapped to
// width. A nested object's fields read as parent.field; other values are
// their JSON, strings unquoted.
func configLines(cfg any) ([]string, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var kv [][2]string
	if err := flatten(&kv, "", raw); err != nil {
		return nil, err
	}
	if len(kv) == 0 {
		// Not an object (or an empty one): its JSON, wrapped.
		return wrapIndent("Config: ", "    ", string(raw)), nil
	}
	keyWidth := 0
	for _, p := range kv {
		keyWidth = max(keyWidth, len(p[0])+1)
	}
	lines := []string{"Config:"}
	pad := strings.Repeat(" ", 4+keyWidth+1)
	for _, p := range kv {
		first := fmt.Sprintf("    %-*s ", keyWidth, p[0]+":")
		lines = append(lines, wrapIndent(first, pad, p[1])...)
	}
	return lines, nil
}

// flatten appends the fields of the JSON object raw to kv, in order,
// nested objects' fields under prefix "key.". raw that is not an object
// appends nothing.
func flatten(kv *[][2]string, prefix string, raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := prefix + tok.(string) // object keys are strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if len(v) > 2 && v[0] == '{' {
			if err := flatten(kv, key+".", v); err != nil {
				return err
			}
			continue
		}
		s := string(v) // not a string: its JSON as it stands (null too)
		if v[0] == '"' {
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
		}
		*kv = append(*kv, [2]string{key, s})
	}
	return nil
}

// wrapIndent is s after first, wrapped to width, each further line
// starting with indent.
func wrapIndent(first, indent, s string) []string {
	lines := wrap(s, max(width-len(indent), 20))
	for i := range lines {
		if i == 0 {
			lines[i] = strings.TrimRight(first+lines[i], " ")
		} else {
			lines[i] = indent + lines[i]
		}
	}
	if len(lines) == 0 {
		lines = []string{strings.TrimRight(first, " ")}
	}
	return lines
}

// wrap breaks s into lines of at most n bytes: between words, else after
// a comma (JSON lists hold no spaces), else, for one unbroken run longer
// than n (a long path), every n bytes.
func wrap(s string, n int) []string {
	var pieces []string
	for _, w := range strings.SplitAfter(s, " ") {
		if len(w) <= n {
			pieces = append(pieces, w)
			continue
		}
		for _, c := range strings.SplitAfter(w, ",") {
			for len(c) > n {
				pieces = append(pieces, c[:n])
				c = c[n:]
			}
			pieces = append(pieces, c)
		}
	}
	var lines []string
	var line strings.Builder
	for _, p := range pieces {
		if line.Len() > 0 && len(strings.TrimRight(line.String()+p, " ")) > n {
			lines = append(lines, strings.TrimRight(line.String(), " "))
			line.Reset()
		}
		line.WriteString(p)
	}
	if line.Len() > 0 {
		lines = append(lines, strings.TrimRight(line.String(), " "))
	}
	return lines
}

// packIndent joins items with ", " after first, breaking lines between
// items where the next would pass width (within one that alone is too
// long, as wrap does), further lines starting with indent.
func packIndent(first, indent string, items []string) []string {
	var lines []string
	line := first
	fresh := true // nothing on line yet but its lead
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		switch {
		case fresh:
		case len(line)+1+len(it) <= width:
			line += " "
		default:
			lines = append(lines, line)
			line, fresh = indent, true
		}
		if len(line)+len(it) > width {
			parts := wrapIndent(line, indent, it)
			lines = append(lines, parts[:len(parts)-1]...)
			line = parts[len(parts)-1]
		} else {
			line += it
		}
		fresh = false
	}
	return append(lines, line)
}

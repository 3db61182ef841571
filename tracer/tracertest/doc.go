// Package tracertest checks a trace.json (package tracer's Waterfall, in
// the Chrome trace-event format) the way a viewer needs it, for the tests
// of every package that writes one.
//
// It is a leaf that imports only the standard library: it reads the JSON, not
// the tracer's types.
package tracertest

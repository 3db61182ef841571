package relay

import "strings"

// Engines lists every Engine, in the order help texts name them: the one
// table that hoprelay's --engine and hopbench's --paths help are written
// from.
var Engines = []Engine{EngineGoroutine, EngineEpoll, EngineSplice, EngineSockmap}

// EngineNames is "goroutine, epoll, splice or sockmap": the Engines for an
// error.
func EngineNames() string { return orList(Engines) }

// EngineList is the Engines' names joined by sep, for a help text:
// EngineList("|") is "goroutine|epoll|splice|sockmap".
func EngineList(sep string) string { return strings.Join(names(Engines), sep) }

// names is the string of each element of a table of names.
func names[T ~string](table []T) []string {
	out := make([]string, len(table))
	for i, v := range table {
		out[i] = string(v)
	}
	return out
}

// orList is "a, b or c" of a table of names.
func orList[T ~string](table []T) string {
	n := names(table)
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

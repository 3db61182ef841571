package roles

import (
	"slices"
	"strings"
)

// Components of a path, as --placement, topology files, the report's
// placement and the tracer name them.
const (
	Client  = "client"  // pingpong
	Relay   = "relay"   // every relay of a path: hoprelay, socat, HAProxy
	Server  = "server"  // the embedded responder, pongd
	Backend = "backend" // a real database server (--backend mysql://)
)

// Path is the components every path has, in the order tables list them:
// client, relay, server.
var Path = []string{Client, Relay, Server}

// hoprelay's engines.
const (
	Goroutine = "goroutine"
	Epoll     = "epoll"
	Splice    = "splice"
	Sockmap   = "sockmap"
)

// Engines lists hoprelay's engines in the order help texts name them: the
// one table that relay's Engine and the analysis' Relay are written from.
var Engines = []string{Goroutine, Epoll, Splice, Sockmap}

// IsEngine reports whether name is one of hoprelay's engines.
func IsEngine(name string) bool { return slices.Contains(Engines, name) }

// OrList is "a, b or c" of a table of names.
func OrList[T ~string](table []T) string {
	n := Names(table)
	if len(n) == 1 {
		return n[0]
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// Names is the string of each element of a table of names.
func Names[T ~string](table []T) []string {
	out := make([]string, len(table))
	for i, v := range table {
		out[i] = string(v)
	}
	return out
}

// Package responder is pongd's server framework: a Server that listens on
// many addresses at once (TCP and UNIX side by side) and serves each
// accepted connection with a protocol's Handler under an I/O model
// (package iomodel), spending a Service time per reply. The protocols'
// handlers live beside it: responder/echo and the MySQL mock responder/mock.
//
// It imports sockets, affinity and iomodel; the load client (pingpong) is
// never linked into it.
package responder

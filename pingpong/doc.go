// Package pingpong is the load client of a request/response measurement:
// its workers time each round trip over one connection under a chosen I/O
// model (package iomodel). The wire protocol is a plug-in (Protocol);
// pingpong/echo and pingpong/mysql provide it. The other end, pongd's
// responder, lives in package responder.
//
// The client's own cost is kept out of the figure: one monotonic clock read
// per send and per receive, one histogram per worker merged at the end, and
// no allocation per round trip.
//
// It may import sockets, affinity, iomodel, pingpong/report and stats; the codecs
// (pingpong/echo, pingpong/mysql) import it, never the other way round.
package pingpong

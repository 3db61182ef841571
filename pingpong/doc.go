// Package pingpong holds both ends of a request/response measurement: the
// load client, whose workers time each round trip over one connection under
// a chosen I/O model, and the responder framework that serves many listening
// addresses at once. The wire protocol is a plug-in (Protocol for the client,
// Handler for the responder); pingpong/echo and pingpong/mysql provide them.
//
// The client's own cost is kept out of the figure: one monotonic clock read
// per send and per receive, one histogram per worker merged at the end, and
// no allocation per round trip.
//
// It may import sockets, affinity, results and results/stats; the codecs
// (pingpong/echo, pingpong/mysql) import it, never the other way round.
package pingpong

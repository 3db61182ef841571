// Package roles names the roles on a measured path, once for every room:
// the components a run places and traces (client, relay, server, backend)
// and the table of hoprelay's engines (goroutine, epoll, splice, sockmap)
// that may play the relay.
//
// It is a leaf: it imports only the standard library, so every room may
// import it, relay and the analysis alike.
package roles

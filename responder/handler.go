package responder

import "io"

// Handler is the responder side of a protocol: ServeConn serves one
// connection until the peer closes it (returning nil at a clean EOF). unix
// marks a UNIX-domain socket, which a raw fd cannot say itself.
type Handler interface {
	ServeConn(rw io.ReadWriter, unix bool) error
}

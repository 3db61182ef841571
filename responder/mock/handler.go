package mock

import "io"

// Handler is the responder's side: it serves each connection with Server.
type Handler struct {
	Server *Server
}

// ServeConn serves one connection until COM_QUIT or end of stream. unix
// marks a UNIX-domain socket, which caching_sha2_password trusts with the
// password in clear; a raw fd cannot say so itself.
func (h Handler) ServeConn(rw io.ReadWriter, unix bool) error {
	if unix {
		return h.Server.ServeUnixConn(rw)
	}
	return h.Server.ServeConn(rw)
}

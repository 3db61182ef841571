// Package wire is the MySQL/MariaDB client/server protocol as bytes: packet
// framing with sequence ids and the 16 MiB split (PacketConn), length-encoded
// integers and strings, a Decoder that names the field a malformed packet
// breaks, and the codecs of the greeting, the handshake response, auth
// switches and tokens, OK/ERR/EOF, column definitions and rows. Both ends
// (the client in package mysql, the mock in package mock) build on it; it
// imports the standard library only, and its steady path reuses buffers so
// that a packet costs no allocation.
package wire

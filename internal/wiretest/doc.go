// Package wiretest is test support for the MySQL protocol's packages (the
// wire codec, the client, the mock): in-memory streams, hex captures and
// the captured handshake they share. Tests only.
package wiretest

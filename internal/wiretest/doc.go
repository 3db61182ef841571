// Package wiretest is test support for the wire protocols' packages (the
// MySQL codec, client and mock; the echo client and responder): in-memory
// streams, hex captures and the captured handshake they share. Tests only.
package wiretest

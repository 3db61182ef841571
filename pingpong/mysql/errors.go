package mysql

import "fmt"

// ServerError is an ERR packet from the peer. Callers count failures by Code.
type ServerError struct {
	Code    uint16
	State   string // SQLSTATE, five characters; empty if the peer sent none
	Message string
}

func (e *ServerError) Error() string {
	if e.State == "" {
		return fmt.Sprintf("mysql: server error %d: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("mysql: server error %d (%s): %s", e.Code, e.State, e.Message)
}

// parseErr decodes an ERR packet (MySQL Source Code Documentation, ERR_Packet):
// 0xFF, code, '#' + SQLSTATE when
// the 4.1 protocol is on, then the message.
func parseErr(b []byte) error {
	d := decoder{b: b, what: "ERR packet"}
	d.header(headerErr)
	e := &ServerError{Code: d.u16("error code")}
	if d.err != nil {
		return d.err
	}
	if d.remaining() >= 6 && b[d.off] == '#' {
		d.skip(1, "SQLSTATE marker")
		e.State = string(d.bytes(5, "SQLSTATE"))
	}
	e.Message = string(d.rest())
	return e
}

func appendErr(b []byte, code uint16, state, msg string) []byte {
	b = append(b, headerErr, byte(code), byte(code>>8), '#')
	b = append(b, state...)
	return append(b, msg...)
}

package wire

import "fmt"

// ServerError is an ERR packet from the peer. Callers count failures by Code.
type ServerError struct {
	Code    uint16
	State   string // SQLSTATE, five characters; empty if the peer sent none
	Message string
}

// Error formats e with its code, its SQLSTATE when the peer sent one, and its
// message.
func (e *ServerError) Error() string {
	if e.State == "" {
		return fmt.Sprintf("mysql: server error %d: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("mysql: server error %d (%s): %s", e.Code, e.State, e.Message)
}

// ParseErr decodes an ERR packet (MySQL Source Code Documentation, ERR_Packet):
// 0xFF, code, '#' + SQLSTATE when the 4.1 protocol is on, then the message.
// It returns a *ServerError, or the decoding error of a malformed packet.
func ParseErr(b []byte) error {
	d := Decoder{B: b, What: "ERR packet"}
	d.Header(HeaderErr)
	e := &ServerError{Code: d.U16("error code")}
	if d.Err != nil {
		return d.Err
	}
	if d.Remaining() >= 6 && b[d.Off] == '#' {
		d.Skip(1, "SQLSTATE marker")
		e.State = string(d.Bytes(5, "SQLSTATE"))
	}
	e.Message = string(d.Rest())
	return e
}

// AppendErr appends an ERR packet's payload: 0xFF, code, '#' and state (the
// five-character SQLSTATE), then msg.
func AppendErr(b []byte, code uint16, state, msg string) []byte {
	b = append(b, HeaderErr, byte(code), byte(code>>8), '#')
	b = append(b, state...)
	return append(b, msg...)
}

// ClientString formats e as the mysql client does.
func (e *ServerError) ClientString() string {
	if e.State == "" {
		return fmt.Sprintf("ERROR %d: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("ERROR %d (%s): %s", e.Code, e.State, e.Message)
}

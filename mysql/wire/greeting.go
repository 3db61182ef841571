package wire

import (
	"encoding/binary"
	"fmt"
)

// Greeting is the server's Initial Handshake v10 (MySQL Source Code
// Documentation, Protocol::HandshakeV10; MariaDB Knowledge Base,
// Connection).
type Greeting struct {
	Version []byte
	ConnID  uint32
	Nonce   [20]byte
	Caps    uint32
	Charset uint8
	Status  uint16
	ExtCaps uint32 // MariaDB extended capabilities, when Caps lacks CapLongPassword
	Plugin  []byte
	MariaDB bool
}

// ParseGreeting decodes a greeting. The byte slices alias b.
func ParseGreeting(b []byte) (Greeting, error) {
	var g Greeting
	d := Decoder{B: b, What: "greeting"}
	if proto := d.U8("protocol version"); d.Err == nil && proto != 10 {
		return g, fmt.Errorf("mysql: decode greeting: protocol version %d, want 10", proto)
	}
	g.Version = d.NulBytes("server version", false)
	g.ConnID = d.U32("connection id")
	copy(g.Nonce[:8], d.Bytes(8, "auth-plugin-data part 1"))
	d.Skip(1, "filler")
	g.Caps = uint32(d.U16("capability flags"))
	if d.Err != nil {
		return g, d.Err
	}
	if d.Remaining() == 0 {
		return g, fmt.Errorf("mysql: decode greeting: pre-4.1 server (capabilities 0x%04x, no extended header)", g.Caps)
	}
	g.Charset = d.U8("character set")
	g.Status = d.U16("status flags")
	g.Caps |= uint32(d.U16("capability flags (high)")) << 16
	authLen := int(d.U8("auth-plugin-data length"))
	reserved := d.Bytes(10, "reserved")
	if d.Err != nil {
		return g, d.Err
	}
	if g.Caps&CapLongPassword == 0 {
		g.MariaDB = true
		g.ExtCaps = binary.LittleEndian.Uint32(reserved[6:])
	}
	if g.Caps&CapSecureConnection == 0 {
		return g, fmt.Errorf("mysql: decode greeting: server lacks CLIENT_SECURE_CONNECTION (capabilities 0x%08x)", g.Caps)
	}
	// Part 2 is max(13, len-8) bytes: 12 nonce bytes and a NUL.
	part2 := d.Bytes(max(13, authLen-8), "auth-plugin-data part 2")
	if d.Err != nil {
		return g, d.Err
	}
	copy(g.Nonce[8:], part2[:12])
	if g.Caps&CapPluginAuth != 0 {
		g.Plugin = d.NulBytes("auth plugin name", true)
	}
	return g, d.Err
}

// AppendGreeting appends g as an Initial Handshake v10 payload, with an
// auth-plugin-data length of 21: the nonce's 20 bytes and a NUL. MariaDB's
// extended capabilities go in the reserved bytes when g.Caps lacks
// CapLongPassword.
func AppendGreeting(b []byte, g *Greeting) []byte {
	b = append(b, 10)
	b = append(b, g.Version...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, g.ConnID)
	b = append(b, g.Nonce[:8]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(g.Caps))
	b = append(b, g.Charset)
	b = binary.LittleEndian.AppendUint16(b, g.Status)
	b = binary.LittleEndian.AppendUint16(b, uint16(g.Caps>>16))
	b = append(b, 21)
	b = append(b, 0, 0, 0, 0, 0, 0)
	if g.Caps&CapLongPassword == 0 {
		b = binary.LittleEndian.AppendUint32(b, g.ExtCaps)
	} else {
		b = append(b, 0, 0, 0, 0)
	}
	b = append(b, g.Nonce[8:]...)
	b = append(b, 0)
	b = append(b, g.Plugin...)
	return append(b, 0)
}

// HandshakeResponse is HandshakeResponse41 (MySQL Source Code
// Documentation, Protocol::HandshakeResponse41).
type HandshakeResponse struct {
	Caps      uint32
	MaxPacket uint32
	Charset   uint8
	// ExtCaps: MariaDB extended capabilities, the last 4 of the 23
	// reserved bytes, read and written only when Caps lacks CLIENT_MYSQL.
	ExtCaps uint32
	User    []byte
	Auth    []byte
	Db      []byte
	Plugin  []byte
}

// SslRequestLen is the length of an SSLRequest: the response's fixed part.
const SslRequestLen = 32

// ParseHandshakeResponse decodes a HandshakeResponse41; the byte slices alias
// b. It fails when the client lacks CLIENT_PROTOCOL_41, on an SSLRequest (TLS
// is not offered), on a truncated packet, and on malformed connection
// attributes, which it otherwise ignores.
func ParseHandshakeResponse(b []byte) (HandshakeResponse, error) {
	var r HandshakeResponse
	d := Decoder{B: b, What: "handshake response"}
	r.Caps = d.U32("capability flags")
	if d.Err == nil && r.Caps&CapProtocol41 == 0 {
		return r, fmt.Errorf("mysql: decode handshake response: client lacks CLIENT_PROTOCOL_41 (capabilities 0x%08x)", r.Caps)
	}
	r.MaxPacket = d.U32("max packet size")
	r.Charset = d.U8("character set")
	d.Skip(19, "filler")
	ext := d.U32("extended capabilities")
	if r.Caps&CapLongPassword == 0 {
		r.ExtCaps = ext
	}
	if d.Err != nil {
		return r, d.Err
	}
	if len(b) == SslRequestLen && r.Caps&CapSSL != 0 {
		return r, fmt.Errorf("mysql: decode handshake response: client requests TLS, which this server does not offer")
	}
	r.User = d.NulBytes("user name", false)
	switch {
	case r.Caps&CapPluginAuthLenEnc != 0:
		r.Auth, _ = d.LenEncBytes("auth response")
	case r.Caps&CapSecureConnection != 0:
		r.Auth = d.Bytes(int(d.U8("auth response length")), "auth response")
	default:
		r.Auth = d.NulBytes("auth response", false)
	}
	if r.Caps&CapConnectWithDB != 0 && d.Remaining() > 0 {
		r.Db = d.NulBytes("schema", true)
	}
	if r.Caps&CapPluginAuth != 0 && d.Remaining() > 0 {
		r.Plugin = d.NulBytes("auth plugin name", true)
	}
	if r.Caps&CapConnectAttrs != 0 && d.Remaining() > 0 {
		if err := d.ConnectAttrs(); err != nil {
			return r, err
		}
	}
	return r, d.Err
}

// AppendHandshakeResponse appends r as a HandshakeResponse41 payload, without
// connection attributes. The auth response is length-encoded when r.Caps has
// CapPluginAuthLenEnc, else prefixed by one length byte; the schema is written
// when r.Caps has CapConnectWithDB, the plugin name when it has CapPluginAuth.
func AppendHandshakeResponse(b []byte, r *HandshakeResponse) []byte {
	b = binary.LittleEndian.AppendUint32(b, r.Caps)
	b = binary.LittleEndian.AppendUint32(b, r.MaxPacket)
	b = append(b, r.Charset)
	b = append(b, make([]byte, 19)...)
	if r.Caps&CapLongPassword == 0 {
		b = binary.LittleEndian.AppendUint32(b, r.ExtCaps)
	} else {
		b = append(b, 0, 0, 0, 0)
	}
	b = append(b, r.User...)
	b = append(b, 0)
	if r.Caps&CapPluginAuthLenEnc != 0 {
		b = AppendLenEncBytes(b, r.Auth)
	} else {
		b = append(b, byte(len(r.Auth)))
		b = append(b, r.Auth...)
	}
	if r.Caps&CapConnectWithDB != 0 {
		b = append(b, r.Db...)
		b = append(b, 0)
	}
	if r.Caps&CapPluginAuth != 0 {
		b = append(b, r.Plugin...)
		b = append(b, 0)
	}
	return b
}

// AuthSwitch is an AuthSwitchRequest (MySQL Source Code
// Documentation, Protocol::AuthSwitchRequest): 0xFE, plugin name, data.
type AuthSwitch struct {
	Plugin []byte
	Data   []byte
}

// ParseAuthSwitch decodes an AuthSwitchRequest; the byte slices alias b. A
// lone 0xFE, the pre-4.1 request for mysql_old_password, is refused.
func ParseAuthSwitch(b []byte) (AuthSwitch, error) {
	var s AuthSwitch
	if len(b) == 1 && b[0] == HeaderEOF {
		return s, fmt.Errorf("mysql: decode auth switch: server asks for mysql_old_password (pre-4.1), which is refused")
	}
	d := Decoder{B: b, What: "auth switch"}
	d.Header(HeaderEOF)
	s.Plugin = d.NulBytes("plugin name", false)
	s.Data = d.Rest()
	return s, d.Err
}

// AppendAuthSwitch appends an AuthSwitchRequest payload: 0xFE, plugin and a
// NUL, then nonce and a NUL.
func AppendAuthSwitch(b []byte, plugin string, nonce []byte) []byte {
	b = append(b, HeaderEOF)
	b = append(b, plugin...)
	b = append(b, 0)
	b = append(b, nonce...)
	return append(b, 0)
}

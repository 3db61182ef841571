package mysql

import (
	"encoding/binary"
	"fmt"
)

// greeting is the server's Initial Handshake v10 (MySQL Source Code
// Documentation, Protocol::HandshakeV10; MariaDB Knowledge Base,
// Connection).
type greeting struct {
	version []byte
	connID  uint32
	nonce   [20]byte
	caps    uint32
	charset uint8
	status  uint16
	extCaps uint32 // MariaDB extended capabilities, when caps lacks capLongPassword
	plugin  []byte
	mariaDB bool
}

// parseGreeting decodes a greeting. The byte slices alias b.
func parseGreeting(b []byte) (greeting, error) {
	var g greeting
	d := decoder{b: b, what: "greeting"}
	if proto := d.u8("protocol version"); d.err == nil && proto != 10 {
		return g, fmt.Errorf("mysql: decode greeting: protocol version %d, want 10", proto)
	}
	g.version = d.nulBytes("server version", false)
	g.connID = d.u32("connection id")
	copy(g.nonce[:8], d.bytes(8, "auth-plugin-data part 1"))
	d.skip(1, "filler")
	g.caps = uint32(d.u16("capability flags"))
	if d.err != nil {
		return g, d.err
	}
	if d.remaining() == 0 {
		return g, fmt.Errorf("mysql: decode greeting: pre-4.1 server (capabilities 0x%04x, no extended header)", g.caps)
	}
	g.charset = d.u8("character set")
	g.status = d.u16("status flags")
	g.caps |= uint32(d.u16("capability flags (high)")) << 16
	authLen := int(d.u8("auth-plugin-data length"))
	reserved := d.bytes(10, "reserved")
	if d.err != nil {
		return g, d.err
	}
	if g.caps&capLongPassword == 0 {
		g.mariaDB = true
		g.extCaps = binary.LittleEndian.Uint32(reserved[6:])
	}
	if g.caps&capSecureConnection == 0 {
		return g, fmt.Errorf("mysql: decode greeting: server lacks CLIENT_SECURE_CONNECTION (capabilities 0x%08x)", g.caps)
	}
	// Part 2 is max(13, len-8) bytes: 12 nonce bytes and a NUL.
	part2 := d.bytes(max(13, authLen-8), "auth-plugin-data part 2")
	if d.err != nil {
		return g, d.err
	}
	copy(g.nonce[8:], part2[:12])
	if g.caps&capPluginAuth != 0 {
		g.plugin = d.nulBytes("auth plugin name", true)
	}
	return g, d.err
}

func appendGreeting(b []byte, g *greeting) []byte {
	b = append(b, 10)
	b = append(b, g.version...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, g.connID)
	b = append(b, g.nonce[:8]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(g.caps))
	b = append(b, g.charset)
	b = binary.LittleEndian.AppendUint16(b, g.status)
	b = binary.LittleEndian.AppendUint16(b, uint16(g.caps>>16))
	b = append(b, 21)
	b = append(b, 0, 0, 0, 0, 0, 0)
	if g.caps&capLongPassword == 0 {
		b = binary.LittleEndian.AppendUint32(b, g.extCaps)
	} else {
		b = append(b, 0, 0, 0, 0)
	}
	b = append(b, g.nonce[8:]...)
	b = append(b, 0)
	b = append(b, g.plugin...)
	return append(b, 0)
}

// handshakeResponse is HandshakeResponse41 (MySQL Source Code
// Documentation, Protocol::HandshakeResponse41).
type handshakeResponse struct {
	caps      uint32
	maxPacket uint32
	charset   uint8
	user      []byte
	auth      []byte
	db        []byte
	plugin    []byte
}

// sslRequestLen is the length of an SSLRequest: the response's fixed part.
const sslRequestLen = 32

func parseHandshakeResponse(b []byte) (handshakeResponse, error) {
	var r handshakeResponse
	d := decoder{b: b, what: "handshake response"}
	r.caps = d.u32("capability flags")
	if d.err == nil && r.caps&capProtocol41 == 0 {
		return r, fmt.Errorf("mysql: decode handshake response: client lacks CLIENT_PROTOCOL_41 (capabilities 0x%08x)", r.caps)
	}
	r.maxPacket = d.u32("max packet size")
	r.charset = d.u8("character set")
	d.skip(23, "filler")
	if d.err != nil {
		return r, d.err
	}
	if len(b) == sslRequestLen && r.caps&capSSL != 0 {
		return r, fmt.Errorf("mysql: decode handshake response: client requests TLS, which this server does not offer")
	}
	r.user = d.nulBytes("user name", false)
	switch {
	case r.caps&capPluginAuthLenEnc != 0:
		r.auth, _ = d.lenEncBytes("auth response")
	case r.caps&capSecureConnection != 0:
		r.auth = d.bytes(int(d.u8("auth response length")), "auth response")
	default:
		r.auth = d.nulBytes("auth response", false)
	}
	if r.caps&capConnectWithDB != 0 && d.remaining() > 0 {
		r.db = d.nulBytes("schema", true)
	}
	if r.caps&capPluginAuth != 0 && d.remaining() > 0 {
		r.plugin = d.nulBytes("auth plugin name", true)
	}
	if r.caps&capConnectAttrs != 0 && d.remaining() > 0 {
		if err := d.connectAttrs(); err != nil {
			return r, err
		}
	}
	return r, d.err
}

func appendHandshakeResponse(b []byte, r *handshakeResponse) []byte {
	b = binary.LittleEndian.AppendUint32(b, r.caps)
	b = binary.LittleEndian.AppendUint32(b, r.maxPacket)
	b = append(b, r.charset)
	b = append(b, make([]byte, 23)...)
	b = append(b, r.user...)
	b = append(b, 0)
	if r.caps&capPluginAuthLenEnc != 0 {
		b = appendLenEncBytes(b, r.auth)
	} else {
		b = append(b, byte(len(r.auth)))
		b = append(b, r.auth...)
	}
	if r.caps&capConnectWithDB != 0 {
		b = append(b, r.db...)
		b = append(b, 0)
	}
	if r.caps&capPluginAuth != 0 {
		b = append(b, r.plugin...)
		b = append(b, 0)
	}
	return b
}

// authSwitch is an AuthSwitchRequest (MySQL Source Code
// Documentation, Protocol::AuthSwitchRequest): 0xFE, plugin name, data.
type authSwitch struct {
	plugin []byte
	data   []byte
}

func parseAuthSwitch(b []byte) (authSwitch, error) {
	var s authSwitch
	if len(b) == 1 && b[0] == headerEOF {
		return s, fmt.Errorf("mysql: decode auth switch: server asks for mysql_old_password (pre-4.1), which is refused")
	}
	d := decoder{b: b, what: "auth switch"}
	d.header(headerEOF)
	s.plugin = d.nulBytes("plugin name", false)
	s.data = d.rest()
	return s, d.err
}

func appendAuthSwitch(b []byte, plugin string, nonce []byte) []byte {
	b = append(b, headerEOF)
	b = append(b, plugin...)
	b = append(b, 0)
	b = append(b, nonce...)
	return append(b, 0)
}

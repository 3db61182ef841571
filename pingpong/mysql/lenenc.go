package mysql

import (
	"encoding/binary"
	"fmt"
)

// Length-encoded integers: a first byte below 0xFB is the value; 0xFC, 0xFD
// and 0xFE announce 2, 3 and 8 little-endian bytes. 0xFB is NULL in row data
// and 0xFF is never a prefix (it starts an ERR packet).
const (
	lenencNull = 0xFB
	lenenc2    = 0xFC
	lenenc3    = 0xFD
	lenenc8    = 0xFE
)

func appendLenEncInt(b []byte, v uint64) []byte {
	switch {
	case v < lenencNull:
		return append(b, byte(v))
	case v <= 0xFFFF:
		return append(b, lenenc2, byte(v), byte(v>>8))
	case v <= 0xFFFFFF:
		return append(b, lenenc3, byte(v), byte(v>>8), byte(v>>16))
	default:
		b = append(b, lenenc8)
		return binary.LittleEndian.AppendUint64(b, v)
	}
}

func appendLenEncString(b []byte, s string) []byte {
	return append(appendLenEncInt(b, uint64(len(s))), s...)
}

func appendLenEncBytes(b []byte, s []byte) []byte {
	return append(appendLenEncInt(b, uint64(len(s))), s...)
}

// decoder walks one payload. The first failure sticks: later reads return
// zero values and err names the packet and the field that did not fit, so a
// parser can read every field and check err once.
type decoder struct {
	b    []byte
	off  int
	what string // the packet being decoded, for errors
	err  error
}

func (d *decoder) fail(field string, need int) {
	if d.err == nil {
		d.err = fmt.Errorf("mysql: decode %s: %s truncated at offset %d (need %d bytes, have %d)",
			d.what, field, d.off, need, len(d.b)-d.off)
	}
}

func (d *decoder) failf(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("mysql: decode %s: "+format, append([]any{d.what}, args...)...)
	}
}

// header reads a packet's first byte, which says what the packet is, and
// fails d unless it is want.
func (d *decoder) header(want byte) {
	if h := d.u8("header"); d.err == nil && h != want {
		d.failf("header 0x%02x, want 0x%02x", h, want)
	}
}

func (d *decoder) remaining() int { return len(d.b) - d.off }

func (d *decoder) bytes(n int, field string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail(field, n)
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *decoder) skip(n int, field string) { d.bytes(n, field) }

func (d *decoder) u8(field string) uint8 {
	p := d.bytes(1, field)
	if p == nil {
		return 0
	}
	return p[0]
}

func (d *decoder) u16(field string) uint16 {
	p := d.bytes(2, field)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(p)
}

func (d *decoder) u32(field string) uint32 {
	p := d.bytes(4, field)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

// lenEncInt reads a length-encoded integer; null reports the 0xFB marker.
func (d *decoder) lenEncInt(field string) (v uint64, null bool) {
	first := d.u8(field)
	if d.err != nil {
		return 0, false
	}
	switch first {
	case lenencNull:
		return 0, true
	case lenenc2:
		p := d.bytes(2, field)
		if p != nil {
			v = uint64(binary.LittleEndian.Uint16(p))
		}
	case lenenc3:
		p := d.bytes(3, field)
		if p != nil {
			v = uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16
		}
	case lenenc8:
		p := d.bytes(8, field)
		if p != nil {
			v = binary.LittleEndian.Uint64(p)
		}
	case 0xFF:
		d.failf("%s: 0xFF is not a length prefix", field)
	default:
		v = uint64(first)
	}
	return v, false
}

// lenEncBytes reads a length-encoded string. The declared length is checked
// against what the payload holds before anything is sliced.
func (d *decoder) lenEncBytes(field string) (s []byte, null bool) {
	n, null := d.lenEncInt(field)
	if d.err != nil || null {
		return nil, null
	}
	if n > uint64(len(d.b)-d.off) {
		d.failf("%s: declared length %d exceeds the %d bytes left", field, n, len(d.b)-d.off)
		return nil, false
	}
	return d.bytes(int(n), field), false
}

// nulBytes reads a NUL-terminated string. A missing terminator at the end of
// the payload is tolerated when lenient is set (some servers omit the NUL
// after the auth plugin name).
func (d *decoder) nulBytes(field string, lenient bool) []byte {
	if d.err != nil {
		return nil
	}
	rest := d.b[d.off:]
	for i, c := range rest {
		if c == 0 {
			d.off += i + 1
			return rest[:i]
		}
	}
	if lenient {
		d.off = len(d.b)
		return rest
	}
	d.failf("%s: no NUL terminator in the %d bytes left", field, len(rest))
	return nil
}

func (d *decoder) rest() []byte {
	if d.err != nil {
		return nil
	}
	p := d.b[d.off:]
	d.off = len(d.b)
	return p
}

// connectAttrs reads the connection attributes that end a handshake
// response or a COM_CHANGE_USER when CLIENT_CONNECT_ATTRS is on: one
// length-encoded block of length-encoded key and value strings (MySQL Source
// Code Documentation, Protocol::HandshakeResponse41 and COM_CHANGE_USER).
// They are read to check their framing, then ignored. A block that overruns
// the payload fails d; a bad string inside it is returned, naming the
// attributes.
func (d *decoder) connectAttrs() error {
	attrs, _ := d.lenEncBytes("connection attributes")
	ad := decoder{b: attrs, what: "connection attributes"}
	for ad.err == nil && ad.remaining() > 0 {
		ad.lenEncBytes("attribute")
	}
	return ad.err
}

package wire

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// Length-encoded integers: a first byte below 0xFB is the value; 0xFC, 0xFD
// and 0xFE announce 2, 3 and 8 little-endian bytes. 0xFB is NULL in row data
// and 0xFF is never a prefix (it starts an ERR packet).
const (
	LenencNull = 0xFB
	Lenenc2    = 0xFC
	Lenenc3    = 0xFD
	Lenenc8    = 0xFE
)

// AppendLenEncInt appends v as a length-encoded integer, in the fewest bytes.
func AppendLenEncInt(b []byte, v uint64) []byte {
	switch {
	case v < LenencNull:
		return append(b, byte(v))
	case v <= 0xFFFF:
		return append(b, Lenenc2, byte(v), byte(v>>8))
	case v <= 0xFFFFFF:
		return append(b, Lenenc3, byte(v), byte(v>>8), byte(v>>16))
	default:
		b = append(b, Lenenc8)
		return binary.LittleEndian.AppendUint64(b, v)
	}
}

// AppendLenEncString appends s as a length-encoded string: its length as a
// length-encoded integer, then its bytes.
func AppendLenEncString(b []byte, s string) []byte {
	return append(AppendLenEncInt(b, uint64(len(s))), s...)
}

// AppendLenEncBytes appends s as a length-encoded string, as
// AppendLenEncString does.
func AppendLenEncBytes(b []byte, s []byte) []byte {
	return append(AppendLenEncInt(b, uint64(len(s))), s...)
}

// A Decoder walks one payload. The first failure sticks: later reads return
// zero values and Err names the packet and the field that did not fit, so a
// parser can read every field and check Err once.
type Decoder struct {
	B    []byte
	Off  int
	What string // the packet being decoded, for errors
	Err  error
}

// Fail fails d, unless it has failed already, with an error saying that field
// is truncated at the current offset: need bytes wanted, fewer left.
func (d *Decoder) Fail(field string, need int) {
	if d.Err == nil {
		d.Err = fmt.Errorf("mysql: decode %s: %s truncated at offset %d (need %d bytes, have %d)",
			d.What, field, d.Off, need, len(d.B)-d.Off)
	}
}

// Failf fails d, unless it has failed already, with an error naming the
// packet, then format and args.
func (d *Decoder) Failf(format string, args ...any) {
	if d.Err == nil {
		d.Err = fmt.Errorf("mysql: decode %s: "+format, append([]any{d.What}, args...)...)
	}
}

// Header reads a packet's first byte, which says what the packet is, and
// fails d unless it is one of want.
func (d *Decoder) Header(want ...byte) {
	h := d.U8("header")
	if d.Err != nil || slices.Contains(want, h) {
		return
	}
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = fmt.Sprintf("0x%02x", w)
	}
	d.Failf("header 0x%02x, want %s", h, strings.Join(names, " or "))
}

// Remaining returns the number of bytes not yet read.
func (d *Decoder) Remaining() int { return len(d.B) - d.Off }

// Bytes reads the next n bytes, aliasing B. It returns nil, and fails d, when
// n is negative or more than the bytes left; it returns nil once d has failed.
func (d *Decoder) Bytes(n int, field string) []byte {
	if d.Err != nil {
		return nil
	}
	if n < 0 || n > len(d.B)-d.Off {
		d.Fail(field, n)
		return nil
	}
	p := d.B[d.Off : d.Off+n]
	d.Off += n
	return p
}

// Skip reads past n bytes, failing d as Bytes does.
func (d *Decoder) Skip(n int, field string) { d.Bytes(n, field) }

// U8 reads one byte; it returns 0 once d has failed.
func (d *Decoder) U8(field string) uint8 {
	p := d.Bytes(1, field)
	if p == nil {
		return 0
	}
	return p[0]
}

// U16 reads a little-endian uint16; it returns 0 once d has failed.
func (d *Decoder) U16(field string) uint16 {
	p := d.Bytes(2, field)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(p)
}

// U32 reads a little-endian uint32; it returns 0 once d has failed.
func (d *Decoder) U32(field string) uint32 {
	p := d.Bytes(4, field)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

// LenEncInt reads a length-encoded integer; null reports the 0xFB marker.
func (d *Decoder) LenEncInt(field string) (v uint64, null bool) {
	first := d.U8(field)
	if d.Err != nil {
		return 0, false
	}
	switch first {
	case LenencNull:
		return 0, true
	case Lenenc2:
		p := d.Bytes(2, field)
		if p != nil {
			v = uint64(binary.LittleEndian.Uint16(p))
		}
	case Lenenc3:
		p := d.Bytes(3, field)
		if p != nil {
			v = uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16
		}
	case Lenenc8:
		p := d.Bytes(8, field)
		if p != nil {
			v = binary.LittleEndian.Uint64(p)
		}
	case 0xFF:
		d.Failf("%s: 0xFF is not a length prefix", field)
	default:
		v = uint64(first)
	}
	return v, false
}

// LenEncBytes reads a length-encoded string. The declared length is checked
// against what the payload holds before anything is sliced.
func (d *Decoder) LenEncBytes(field string) (s []byte, null bool) {
	n, null := d.LenEncInt(field)
	if d.Err != nil || null {
		return nil, null
	}
	if n > uint64(len(d.B)-d.Off) {
		d.Failf("%s: declared length %d exceeds the %d bytes left", field, n, len(d.B)-d.Off)
		return nil, false
	}
	return d.Bytes(int(n), field), false
}

// NulBytes reads a NUL-terminated string. A missing terminator at the end of
// the payload is tolerated when lenient is set (some servers omit the NUL
// after the auth plugin name).
func (d *Decoder) NulBytes(field string, lenient bool) []byte {
	if d.Err != nil {
		return nil
	}
	rest := d.B[d.Off:]
	for i, c := range rest {
		if c == 0 {
			d.Off += i + 1
			return rest[:i]
		}
	}
	if lenient {
		d.Off = len(d.B)
		return rest
	}
	d.Failf("%s: no NUL terminator in the %d bytes left", field, len(rest))
	return nil
}

// Rest reads and returns every byte left, aliasing B; it returns nil once d
// has failed.
func (d *Decoder) Rest() []byte {
	if d.Err != nil {
		return nil
	}
	p := d.B[d.Off:]
	d.Off = len(d.B)
	return p
}

// ConnectAttrs reads the connection attributes that end a handshake
// response or a COM_CHANGE_USER when CLIENT_CONNECT_ATTRS is on: one
// length-encoded block of length-encoded key and value strings (MySQL Source
// Code Documentation, Protocol::HandshakeResponse41 and COM_CHANGE_USER).
// They are read to check their framing, then ignored. A block that overruns
// the payload fails d; a bad string inside it is returned, naming the
// attributes.
func (d *Decoder) ConnectAttrs() error {
	attrs, _ := d.LenEncBytes("connection attributes")
	ad := Decoder{B: attrs, What: "connection attributes"}
	for ad.Err == nil && ad.Remaining() > 0 {
		ad.LenEncBytes("attribute")
	}
	return ad.Err
}

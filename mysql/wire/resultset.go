package wire

import (
	"encoding/binary"
	"fmt"
)

// OkPacket is an OK packet, or the 0xFE-headed OK that ends a result set
// when CLIENT_DEPRECATE_EOF is on.
type OkPacket struct {
	AffectedRows uint64
	LastInsertID uint64
	Status       uint16
	Warnings     uint16
}

// ParseOK decodes OK (0x00) and EOF-style OK (0xFE). Anything after the
// warnings (info, session state) is optional and ignored.
func ParseOK(b []byte) (OkPacket, error) {
	var ok OkPacket
	d := Decoder{B: b, What: "OK packet"}
	d.Header(HeaderOK, HeaderEOF)
	ok.AffectedRows, _ = d.LenEncInt("affected rows")
	ok.LastInsertID, _ = d.LenEncInt("last insert id")
	ok.Status = d.U16("status flags")
	ok.Warnings = d.U16("warnings")
	return ok, d.Err
}

// AppendOK appends an OK packet's payload headed by header: HeaderOK, or
// HeaderEOF for the OK that ends a result set when CLIENT_DEPRECATE_EOF is on.
// It carries affected and status; last insert id and warnings are 0.
func AppendOK(b []byte, header byte, affected uint64, status uint16) []byte {
	b = append(b, header)
	b = AppendLenEncInt(b, affected)
	b = append(b, 0) // last insert id
	b = binary.LittleEndian.AppendUint16(b, status)
	return append(b, 0, 0) // warnings
}

// ParseEOF decodes a classic 5-byte EOF packet.
func ParseEOF(b []byte) (status uint16, err error) {
	d := Decoder{B: b, What: "EOF packet"}
	d.Header(HeaderEOF)
	d.U16("warnings")
	status = d.U16("status flags")
	return status, d.Err
}

// AppendEOF appends a classic 5-byte EOF packet's payload: 0xFE, 0 warnings,
// then status.
func AppendEOF(b []byte, status uint16) []byte {
	return append(b, HeaderEOF, 0, 0, byte(status), byte(status>>8))
}

// IsTerminator reports whether a packet inside a result set ends it: 0xFE
// and shorter than a full packet (a row could start with 0xFE only if its
// first value were 16 MiB or longer).
func IsTerminator(b []byte) bool {
	return len(b) > 0 && b[0] == HeaderEOF && len(b) < MaxPayload
}

// TerminatorStatus reads the status flags of a result-set terminator in
// either shape: classic EOF or, with DEPRECATE_EOF, a 0xFE-headed OK.
func TerminatorStatus(b []byte, deprecateEOF bool) (uint16, error) {
	if deprecateEOF {
		ok, err := ParseOK(b)
		return ok.Status, err
	}
	return ParseEOF(b)
}

// ColumnDef is a ColumnDefinition41 (MySQL Source Code Documentation,
// Column Definition). Byte slices alias the payload.
type ColumnDef struct {
	Schema, Table, OrgTable, Name, OrgName []byte
	Charset                                uint16
	Length                                 uint32
	ColType                                uint8
	Flags                                  uint16
	Decimals                               uint8
}

// ParseColumnDef decodes a column definition; the byte slices alias b. It
// fails on a truncated packet, a catalog other than "def", or a fixed-fields
// length below 0x0C; bytes after the decimals are not read.
func ParseColumnDef(b []byte) (ColumnDef, error) {
	var c ColumnDef
	d := Decoder{B: b, What: "column definition"}
	if cat, _ := d.LenEncBytes("catalog"); d.Err == nil && string(cat) != "def" {
		d.Failf("catalog %q, want \"def\"", cat)
	}
	c.Schema, _ = d.LenEncBytes("schema")
	c.Table, _ = d.LenEncBytes("table")
	c.OrgTable, _ = d.LenEncBytes("org_table")
	c.Name, _ = d.LenEncBytes("name")
	c.OrgName, _ = d.LenEncBytes("org_name")
	fixed, _ := d.LenEncInt("fixed-fields length")
	if d.Err == nil && fixed < 0x0C {
		d.Failf("fixed-fields length %d, want 12", fixed)
	}
	c.Charset = d.U16("character set")
	c.Length = d.U32("column length")
	c.ColType = d.U8("type")
	c.Flags = d.U16("flags")
	c.Decimals = d.U8("decimals")
	return c, d.Err
}

// AppendColumnDef appends c as a column definition's payload: catalog "def",
// the five names as length-encoded strings, fixed-fields length 0x0C, the
// fixed fields, then two filler bytes.
func AppendColumnDef(b []byte, c *ColumnDef) []byte {
	b = AppendLenEncString(b, "def")
	b = AppendLenEncBytes(b, c.Schema)
	b = AppendLenEncBytes(b, c.Table)
	b = AppendLenEncBytes(b, c.OrgTable)
	b = AppendLenEncBytes(b, c.Name)
	b = AppendLenEncBytes(b, c.OrgName)
	b = append(b, 0x0C)
	b = binary.LittleEndian.AppendUint16(b, c.Charset)
	b = binary.LittleEndian.AppendUint32(b, c.Length)
	b = append(b, c.ColType)
	b = binary.LittleEndian.AppendUint16(b, c.Flags)
	return append(b, c.Decimals, 0, 0)
}

// CheckTextRow walks a text-protocol row: cols values, each a lenenc string
// or 0xFB for NULL, filling the payload exactly.
func CheckTextRow(b []byte, cols int) error {
	d := Decoder{B: b, What: "text row"}
	for i := 0; i < cols && d.Err == nil; i++ {
		d.LenEncBytes("column value")
	}
	if d.Err == nil && d.Remaining() != 0 {
		return fmt.Errorf("mysql: decode text row: %d bytes left after %d columns", d.Remaining(), cols)
	}
	return d.Err
}

// BinaryValueLen returns the size of a binary-protocol value of type t, or -1
// for a length-prefixed value (the caller reads a lenenc string).
func BinaryValueLen(t uint8) int {
	switch t {
	case TypeTiny:
		return 1
	case TypeShort, TypeYear:
		return 2
	case TypeLong, TypeInt24, TypeFloat:
		return 4
	case TypeLongLong, TypeDouble:
		return 8
	case TypeNull:
		return 0
	}
	return -1
}

// CheckBinaryRow walks a binary-protocol row (MySQL Source Code Documentation,
// Binary Protocol Resultset Row): 0x00, a NULL bitmap of (cols+9)/8 bytes
// with a bit offset of 2, then each non-NULL value in the encoding its column
// type dictates.
func CheckBinaryRow(b []byte, types []byte) error {
	d := Decoder{B: b, What: "binary row"}
	d.Header(HeaderOK)
	bitmap := d.Bytes((len(types)+9)/8, "NULL bitmap")
	for i, t := range types {
		if d.Err != nil {
			break
		}
		if bit := i + 2; bitmap[bit/8]&(1<<(bit%8)) != 0 {
			continue
		}
		switch t {
		case TypeDate, TypeDateTime, TypeTimestamp, TypeTime:
			// One length byte, then that many bytes.
			d.Bytes(int(d.U8("temporal length")), "temporal value")
		default:
			if n := BinaryValueLen(t); n >= 0 {
				d.Skip(n, "fixed-size value")
			} else {
				d.LenEncBytes("column value")
			}
		}
	}
	if d.Err == nil && d.Remaining() != 0 {
		return fmt.Errorf("mysql: decode binary row: %d bytes left after %d columns", d.Remaining(), len(types))
	}
	return d.Err
}

// StmtPrepareOK is the first packet of a COM_STMT_PREPARE response.
type StmtPrepareOK struct {
	Id       uint32
	Columns  uint16
	Params   uint16
	Warnings uint16
}

// ParseStmtPrepareOK decodes a COM_STMT_PREPARE response's first packet:
// 0x00, statement id, column and parameter counts, a filler byte, then the
// warning count when present. It fails on another header or a truncated packet.
func ParseStmtPrepareOK(b []byte) (StmtPrepareOK, error) {
	var p StmtPrepareOK
	d := Decoder{B: b, What: "prepare OK"}
	d.Header(HeaderOK)
	p.Id = d.U32("statement id")
	p.Columns = d.U16("column count")
	p.Params = d.U16("parameter count")
	d.Skip(1, "filler")
	if d.Remaining() >= 2 {
		p.Warnings = d.U16("warnings")
	}
	return p, d.Err
}

// AppendStmtPrepareOK appends p as a COM_STMT_PREPARE response's first
// packet: 0x00, statement id, column and parameter counts, a filler byte and
// a warning count of 0.
func AppendStmtPrepareOK(b []byte, p *StmtPrepareOK) []byte {
	b = append(b, HeaderOK)
	b = binary.LittleEndian.AppendUint32(b, p.Id)
	b = binary.LittleEndian.AppendUint16(b, p.Columns)
	b = binary.LittleEndian.AppendUint16(b, p.Params)
	return append(b, 0, 0, 0)
}

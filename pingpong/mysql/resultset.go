package mysql

import (
	"encoding/binary"
	"fmt"
)

// okPacket is an OK packet, or the 0xFE-headed OK that ends a result set
// when CLIENT_DEPRECATE_EOF is on.
type okPacket struct {
	affectedRows uint64
	lastInsertID uint64
	status       uint16
	warnings     uint16
}

// parseOK decodes OK (0x00) and EOF-style OK (0xFE). Anything after the
// warnings (info, session state) is optional and ignored.
func parseOK(b []byte) (okPacket, error) {
	var ok okPacket
	d := decoder{b: b, what: "OK packet"}
	if h := d.u8("header"); d.err == nil && h != headerOK && h != headerEOF {
		return ok, fmt.Errorf("mysql: decode OK packet: header 0x%02x, want 0x00 or 0xfe", h)
	}
	ok.affectedRows, _ = d.lenEncInt("affected rows")
	ok.lastInsertID, _ = d.lenEncInt("last insert id")
	ok.status = d.u16("status flags")
	ok.warnings = d.u16("warnings")
	return ok, d.err
}

func appendOK(b []byte, header byte, affected uint64, status uint16) []byte {
	b = append(b, header)
	b = appendLenEncInt(b, affected)
	b = append(b, 0) // last insert id
	b = binary.LittleEndian.AppendUint16(b, status)
	return append(b, 0, 0) // warnings
}

// parseEOF decodes a classic 5-byte EOF packet.
func parseEOF(b []byte) (status uint16, err error) {
	d := decoder{b: b, what: "EOF packet"}
	d.header(headerEOF)
	d.u16("warnings")
	status = d.u16("status flags")
	return status, d.err
}

func appendEOF(b []byte, status uint16) []byte {
	return append(b, headerEOF, 0, 0, byte(status), byte(status>>8))
}

// isTerminator reports whether a packet inside a result set ends it: 0xFE
// and shorter than a full packet (a row could start with 0xFE only if its
// first value were 16 MiB or longer).
func isTerminator(b []byte) bool {
	return len(b) > 0 && b[0] == headerEOF && len(b) < maxPayload
}

// terminatorStatus reads the status flags of a result-set terminator in
// either shape: classic EOF or, with DEPRECATE_EOF, a 0xFE-headed OK.
func terminatorStatus(b []byte, deprecateEOF bool) (uint16, error) {
	if deprecateEOF {
		ok, err := parseOK(b)
		return ok.status, err
	}
	return parseEOF(b)
}

// columnDef is a ColumnDefinition41 (MySQL Source Code Documentation,
// Column Definition). Byte slices alias the
// payload.
type columnDef struct {
	schema, table, orgTable, name, orgName []byte
	charset                                uint16
	length                                 uint32
	colType                                uint8
	flags                                  uint16
	decimals                               uint8
}

func parseColumnDef(b []byte) (columnDef, error) {
	var c columnDef
	d := decoder{b: b, what: "column definition"}
	if cat, _ := d.lenEncBytes("catalog"); d.err == nil && string(cat) != "def" {
		return c, fmt.Errorf("mysql: decode column definition: catalog %q, want \"def\"", cat)
	}
	c.schema, _ = d.lenEncBytes("schema")
	c.table, _ = d.lenEncBytes("table")
	c.orgTable, _ = d.lenEncBytes("org_table")
	c.name, _ = d.lenEncBytes("name")
	c.orgName, _ = d.lenEncBytes("org_name")
	fixed, _ := d.lenEncInt("fixed-fields length")
	if d.err == nil && fixed < 0x0C {
		return c, fmt.Errorf("mysql: decode column definition: fixed-fields length %d, want 12", fixed)
	}
	c.charset = d.u16("character set")
	c.length = d.u32("column length")
	c.colType = d.u8("type")
	c.flags = d.u16("flags")
	c.decimals = d.u8("decimals")
	return c, d.err
}

func appendColumnDef(b []byte, c *columnDef) []byte {
	b = appendLenEncString(b, "def")
	b = appendLenEncBytes(b, c.schema)
	b = appendLenEncBytes(b, c.table)
	b = appendLenEncBytes(b, c.orgTable)
	b = appendLenEncBytes(b, c.name)
	b = appendLenEncBytes(b, c.orgName)
	b = append(b, 0x0C)
	b = binary.LittleEndian.AppendUint16(b, c.charset)
	b = binary.LittleEndian.AppendUint32(b, c.length)
	b = append(b, c.colType)
	b = binary.LittleEndian.AppendUint16(b, c.flags)
	return append(b, c.decimals, 0, 0)
}

// checkTextRow walks a text-protocol row: cols values, each a lenenc string
// or 0xFB for NULL, filling the payload exactly.
func checkTextRow(b []byte, cols int) error {
	d := decoder{b: b, what: "text row"}
	for i := 0; i < cols && d.err == nil; i++ {
		d.lenEncBytes("column value")
	}
	if d.err == nil && d.remaining() != 0 {
		return fmt.Errorf("mysql: decode text row: %d bytes left after %d columns", d.remaining(), cols)
	}
	return d.err
}

// binaryValueLen returns the size of a binary-protocol value of type t whose
// encoding starts at b[0], or -1 for a length-prefixed value (the caller
// reads a lenenc string).
func binaryValueLen(t uint8) int {
	switch t {
	case typeTiny:
		return 1
	case typeShort, typeYear:
		return 2
	case typeLong, typeInt24, typeFloat:
		return 4
	case typeLongLong, typeDouble:
		return 8
	case typeNull:
		return 0
	}
	return -1
}

// checkBinaryRow walks a binary-protocol row (MySQL Source Code Documentation,
// Binary Protocol Resultset Row): 0x00, a NULL bitmap
// of (cols+9)/8 bytes with a bit offset of 2, then each non-NULL value in
// the encoding its column type dictates.
func checkBinaryRow(b []byte, types []byte) error {
	d := decoder{b: b, what: "binary row"}
	d.header(headerOK)
	bitmap := d.bytes((len(types)+9)/8, "NULL bitmap")
	for i, t := range types {
		if d.err != nil {
			break
		}
		if bit := i + 2; bitmap[bit/8]&(1<<(bit%8)) != 0 {
			continue
		}
		switch t {
		case typeDate, typeDateTime, typeTimestamp, typeTime:
			// One length byte, then that many bytes.
			d.bytes(int(d.u8("temporal length")), "temporal value")
		default:
			if n := binaryValueLen(t); n >= 0 {
				d.skip(n, "fixed-size value")
			} else {
				d.lenEncBytes("column value")
			}
		}
	}
	if d.err == nil && d.remaining() != 0 {
		return fmt.Errorf("mysql: decode binary row: %d bytes left after %d columns", d.remaining(), len(types))
	}
	return d.err
}

// stmtPrepareOK is the first packet of a COM_STMT_PREPARE response.
type stmtPrepareOK struct {
	id       uint32
	columns  uint16
	params   uint16
	warnings uint16
}

func parseStmtPrepareOK(b []byte) (stmtPrepareOK, error) {
	var p stmtPrepareOK
	d := decoder{b: b, what: "prepare OK"}
	d.header(headerOK)
	p.id = d.u32("statement id")
	p.columns = d.u16("column count")
	p.params = d.u16("parameter count")
	d.skip(1, "filler")
	if d.remaining() >= 2 {
		p.warnings = d.u16("warnings")
	}
	return p, d.err
}

func appendStmtPrepareOK(b []byte, p *stmtPrepareOK) []byte {
	b = append(b, headerOK)
	b = binary.LittleEndian.AppendUint32(b, p.id)
	b = binary.LittleEndian.AppendUint16(b, p.columns)
	b = binary.LittleEndian.AppendUint16(b, p.params)
	return append(b, 0, 0, 0)
}

package relay

import (
	"encoding/binary"

	"github.com/hoplat/hoplat/mysql/wire"
)

// respKind is the shape of the response a command gets, which says where
// it ends (MySQL Source Code Documentation, Text Protocol, Prepared
// Statements; MariaDB Knowledge Base, Result Set Packets).
type respKind uint8

const (
	// respResult: OK, ERR, a LOCAL INFILE request, or a result set
	// (column count, definitions, [EOF], rows, terminator), repeated
	// while a terminator or OK says more results exist. COM_QUERY,
	// COM_STMT_EXECUTE, COM_PING, COM_INIT_DB, COM_STMT_RESET and
	// anything unknown (ERR 1047).
	respResult respKind = iota
	// respPrepare: prepare-OK and its parameter and column definitions
	// (each block followed by an EOF without DEPRECATE_EOF), or ERR.
	respPrepare
	// respOne: one packet (COM_STATISTICS's text, COM_SET_OPTION's EOF).
	respOne
	// respRows: rows up to a terminator or ERR (COM_STMT_FETCH,
	// COM_FIELD_LIST's definitions).
	respRows
)

type respState uint8

const (
	stFirst respState = iota // the response's (or the next result's) first packet
	stDefs                   // counting a prepare-OK's definitions (and EOFs)
	stCols                   // counting a result set's column definitions (and EOF)
	stRows                   // rows until the terminator
)

// tracker follows one response packet by packet, reading only what says
// where it ends: first bytes, counts, terminators' status flags. A packet
// of 16 MiB or more arrives as frames of 0xFFFFFF bytes and a shorter one;
// it is judged by its first frame and its other frames pass unread.
type tracker struct {
	kind   respKind
	st     respState
	deof   bool   // CLIENT_DEPRECATE_EOF: a 0xFE OK ends rows, no EOF after definitions
	meta   bool   // MariaDB's CACHE_METADATA: a column count says whether definitions follow
	cont   bool   // the last frame was 0xFFFFFF bytes: the next continues its packet
	left   uint64 // packets left in the current block of definitions
	status uint16 // status flags of the last OK or terminator
	err    bool   // the response ended in ERR
	infile bool   // the server asked for a LOCAL INFILE: the client's data goes next
	first  bool   // the packet being fed is the response's first
	// stmt, params and cols are a prepare-OK's.
	stmt         uint32
	params, cols uint16
	gotStatus    bool // status holds a status the response carried
}

// start readies t for the response to one command.
func (t *tracker) start(kind respKind, deof, meta bool) {
	*t = tracker{kind: kind, deof: deof, meta: meta, first: true}
	if kind == respRows {
		t.st = stRows
	}
}

// feed takes the next frame of the response (header included) and reports
// whether the response is complete with it. A malformed packet ends the
// response: what follows is the peer's problem, and the router never waits
// for bytes a broken count promises.
func (t *tracker) feed(f []byte) bool {
	p := f[4:]
	n := len(p)
	first := t.first
	t.first = false
	if t.cont {
		t.cont = n == wire.MaxPayload
		return false
	}
	t.cont = n == wire.MaxPayload
	if n == 0 {
		return true
	}
	switch t.st {
	case stFirst:
		switch {
		case p[0] == wire.HeaderErr:
			t.err = true
			return true
		case t.kind == respOne:
			return true
		case p[0] == wire.HeaderOK && t.kind == respPrepare && first:
			if n < 9 {
				return true
			}
			t.stmt = binary.LittleEndian.Uint32(p[1:])
			t.cols = binary.LittleEndian.Uint16(p[5:])
			t.params = binary.LittleEndian.Uint16(p[7:])
			t.left = uint64(t.params) + uint64(t.cols)
			if !t.deof {
				if t.params > 0 {
					t.left++
				}
				if t.cols > 0 {
					t.left++
				}
			}
			t.st = stDefs
			return t.left == 0
		case p[0] == wire.HeaderOK:
			t.okStatus(p)
			return t.status&wire.ServerMoreResults == 0
		case p[0] == wire.HeaderLocalInfile && n < wire.MaxPayload:
			// The client sends the file, then an empty packet; the
			// server's OK or ERR follows (stFirst again).
			t.infile = true
			return false
		}
		cols, ok := lenEnc(p)
		if !ok || cols == 0 {
			return true
		}
		t.left = cols
		if t.meta {
			// The byte after the count: 0 when the definitions are left
			// out (the client has them cached); the EOF that ends them
			// comes all the same without DEPRECATE_EOF.
			if w := lenEncWidth(p, 0); w < n && p[w] == 0 {
				t.left = 0
			}
		}
		if !t.deof {
			t.left++
		}
		if t.left == 0 {
			t.st = stRows
			return false
		}
		t.st = stCols
		return false
	case stDefs:
		t.left--
		return t.left == 0
	case stCols:
		t.left--
		if t.left == 0 {
			t.st = stRows
		}
		return false
	default: // stRows
		switch {
		case p[0] == wire.HeaderErr:
			t.err = true
			return true
		case p[0] == wire.HeaderEOF && n < wire.MaxPayload:
			if t.deof {
				t.okStatus(p)
			} else if n >= 5 {
				t.status = binary.LittleEndian.Uint16(p[3:])
				t.gotStatus = true
			}
			if t.status&wire.ServerMoreResults != 0 && t.kind == respResult {
				t.st = stFirst
				return false
			}
			return true
		}
		return false
	}
}

// okStatus reads an OK packet's status flags: header, affected rows and
// last insert id (length-encoded), then status.
func (t *tracker) okStatus(p []byte) {
	off := 1
	for range 2 {
		w := lenEncWidth(p, off)
		if w == 0 {
			return
		}
		off += w
	}
	if off+2 <= len(p) {
		t.status = binary.LittleEndian.Uint16(p[off:])
		t.gotStatus = true
	}
}

// lenEnc reads the length-encoded integer p starts with.
func lenEnc(p []byte) (uint64, bool) {
	w := lenEncWidth(p, 0)
	switch w {
	case 0:
		return 0, false
	case 1:
		return uint64(p[0]), true
	}
	var v uint64
	for i := w - 1; i >= 1; i-- {
		v = v<<8 | uint64(p[i])
	}
	return v, true
}

// lenEncWidth is the width of the length-encoded integer at p[off], 0 when
// it is truncated or no integer (0xFB, 0xFF).
func lenEncWidth(p []byte, off int) int {
	if off >= len(p) {
		return 0
	}
	w := 1
	switch p[off] {
	case 0xFB, 0xFF:
		return 0
	case 0xFC:
		w = 3
	case 0xFD:
		w = 4
	case 0xFE:
		w = 9
	}
	if off+w > len(p) {
		return 0
	}
	return w
}

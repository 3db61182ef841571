package relay

import (
	"testing"

	"github.com/hoplat/hoplat/mysql/wire"
)

// frames frames payloads with sequence ids from 1, as a response's.
func frames(payloads ...[]byte) [][]byte {
	var out [][]byte
	for i, p := range payloads {
		f := append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), byte(i + 1)}, p...)
		out = append(out, f)
	}
	return out
}

func TestTrackerEnds(t *testing.T) {
	col := wire.AppendColumnDef(nil, &wire.ColumnDef{Name: []byte("c"), ColType: wire.TypeVarString})
	row := []byte{3, 'a', 'b', 'c'}
	okMore := wire.AppendOK(nil, wire.HeaderOK, 0, wire.ServerStatusAutocommit|wire.ServerMoreResults)
	ok := wire.AppendOK(nil, wire.HeaderOK, 0, wire.ServerStatusAutocommit|wire.ServerStatusInTrans)
	eofMore := wire.AppendEOF(nil, wire.ServerStatusAutocommit|wire.ServerMoreResults)
	eof := wire.AppendEOF(nil, wire.ServerStatusAutocommit)
	feOK := wire.AppendOK(nil, wire.HeaderEOF, 0, wire.ServerStatusAutocommit)
	feOKMore := wire.AppendOK(nil, wire.HeaderEOF, 0, wire.ServerStatusAutocommit|wire.ServerMoreResults)
	errp := wire.AppendErr(nil, 1146, "42S02", "no table")
	prepOK := wire.AppendStmtPrepareOK(nil, &wire.StmtPrepareOK{Id: 7, Columns: 1, Params: 2})
	tests := []struct {
		name   string
		kind   respKind
		deof   bool
		resp   [][]byte
		status uint16
	}{
		{"ok", respResult, true, frames(ok), wire.ServerStatusAutocommit | wire.ServerStatusInTrans},
		{"err", respResult, true, frames(errp), 0},
		{"rows deprecate-eof", respResult, true, frames([]byte{1}, col, row, row, feOK), wire.ServerStatusAutocommit},
		{"rows classic", respResult, false, frames([]byte{1}, col, eof, row, eof), wire.ServerStatusAutocommit},
		{"rows then err", respResult, true, frames([]byte{1}, col, row, errp), 0},
		{"multi-result classic", respResult, false, frames([]byte{1}, col, eof, row, eofMore, []byte{1}, col, eof, row, eofMore, ok), wire.ServerStatusAutocommit | wire.ServerStatusInTrans},
		{"multi-result deprecate-eof", respResult, true, frames([]byte{1}, col, row, feOKMore, okMore, ok), wire.ServerStatusAutocommit | wire.ServerStatusInTrans},
		{"prepare deprecate-eof", respPrepare, true, frames(prepOK, col, col, col), 0},
		{"prepare classic", respPrepare, false, frames(prepOK, col, col, eof, col, eof), 0},
		{"prepare err", respPrepare, true, frames(errp), 0},
		{"one", respOne, true, frames([]byte("Uptime: 5")), 0},
		{"field list", respRows, false, frames(col, col, eof), wire.ServerStatusAutocommit},
	}
	for _, tc := range tests {
		tr := trackAll(t, tc.name, tc.kind, tc.deof, false, tc.resp)
		if tr.status != tc.status {
			t.Errorf("%s: status 0x%04x, want 0x%04x", tc.name, tr.status, tc.status)
		}
		if tc.kind == respPrepare && !tr.err && (tr.stmt != 7 || tr.params != 2 || tr.cols != 1) {
			t.Errorf("%s: stmt %d params %d cols %d", tc.name, tr.stmt, tr.params, tr.cols)
		}
	}
}

// trackAll feeds resp to a tracker started so and requires that its last
// packet, and only that one, ends the response.
func trackAll(t *testing.T, name string, kind respKind, deof, meta bool, resp [][]byte) *tracker {
	t.Helper()
	var tr tracker
	tr.start(kind, deof, meta)
	for i, f := range resp {
		done := tr.feed(f)
		if last := i == len(resp)-1; done != last {
			t.Errorf("%s: packet %d of %d: done %v", name, i+1, len(resp), done)
			break
		}
	}
	return &tr
}

// TestTrackerCacheMetadata: with MariaDB's CACHE_METADATA a column count
// carries one more byte; 0 leaves the definitions out (an execute whose
// columns the client has cached), and the EOF that would end them comes
// all the same without DEPRECATE_EOF.
func TestTrackerCacheMetadata(t *testing.T) {
	col := wire.AppendColumnDef(nil, &wire.ColumnDef{Name: []byte("c"), ColType: wire.TypeVarString})
	row := []byte{0, 0, 3, 'a', 'b', 'c'}
	eof := wire.AppendEOF(nil, wire.ServerStatusAutocommit)
	feOK := wire.AppendOK(nil, wire.HeaderEOF, 0, wire.ServerStatusAutocommit)
	tests := []struct {
		name string
		deof bool
		resp [][]byte
	}{
		{"left out, deprecate-eof", true, frames([]byte{2, 0}, row, row, feOK)},
		{"left out, classic", false, frames([]byte{2, 0}, eof, row, eof)},
		{"left out, no rows", true, frames([]byte{1, 0}, feOK)},
		{"sent, deprecate-eof", true, frames([]byte{2, 1}, col, col, row, feOK)},
		{"sent, classic", false, frames([]byte{1, 1}, col, eof, row, eof)},
	}
	for _, tc := range tests {
		if tr := trackAll(t, tc.name, respResult, tc.deof, true, tc.resp); tr.status != wire.ServerStatusAutocommit {
			t.Errorf("%s: status 0x%04x", tc.name, tr.status)
		}
	}
	// Without the capability the same bytes mean definitions follow: the
	// count's second byte is not read.
	trackAll(t, "not negotiated", respResult, true, false, frames([]byte{1, 0}, col, row, feOK))
}

// TestTrackerBigRow: a row of 16 MiB or more arrives as frames of
// 0xFFFFFF bytes and a shorter one; a continuation frame that starts with
// 0xFE is not a terminator.
func TestTrackerBigRow(t *testing.T) {
	var tr tracker
	tr.start(respResult, true, false)
	big := make([]byte, 4+wire.MaxPayload)
	big[0], big[1], big[2], big[3] = 0xFF, 0xFF, 0xFF, 3
	tail := []byte{1, 0, 0, 4, 0xFE}
	for i, f := range [][]byte{{1, 0, 0, 1, 1}, {1, 0, 0, 2, 0}, big, tail} {
		if tr.feed(f) {
			t.Fatalf("done at frame %d", i)
		}
	}
	if !tr.feed(frames(wire.AppendOK(nil, wire.HeaderEOF, 0, 2))[0]) {
		t.Fatal("terminator after the big row not seen")
	}
}

// FuzzTracker: whatever a server sends, the tracker neither panics nor
// reads past a frame.
func FuzzTracker(f *testing.F) {
	f.Add([]byte{1, 0, 0, 1, 1, 2, 0, 0, 2, 3, 'a', 5, 0, 0, 3, 0xFE, 0, 0, 2, 0}, uint8(0), true, false)
	f.Add([]byte{12, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}, uint8(1), false, false)
	f.Add([]byte{2, 0, 0, 1, 1, 0, 4, 0, 0, 2, 0, 0, 1, 'a', 7, 0, 0, 3, 0xFE, 0, 0, 2, 0, 0, 0}, uint8(0), true, true)
	f.Fuzz(func(t *testing.T, b []byte, kind uint8, deof, meta bool) {
		var tr tracker
		tr.start(respKind(kind%4), deof, meta)
		for len(b) >= 4 {
			n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
			if 4+n > len(b) {
				return
			}
			if tr.feed(b[:4+n]) {
				tr.start(respKind(kind%4), deof, meta)
			}
			b = b[4+n:]
		}
	})
}

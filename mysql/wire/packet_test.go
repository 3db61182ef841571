package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
)

func TestPacketSplitRule(t *testing.T) {
	for _, size := range []int{0, 1, MaxPayload - 1, MaxPayload, MaxPayload + 1, 2 * MaxPayload} {
		payload := bytes.Repeat([]byte{0xAB}, size)
		w := NewPacketConn(nil)
		w.Seq = 7
		w.WritePacket(payload)
		frames := w.Wbuf
		// Headers: one per full chunk plus one short (maybe empty) packet.
		wantPackets := size/MaxPayload + 1
		if len(frames) != size+4*wantPackets {
			t.Fatalf("size %d: %d framed bytes, want %d", size, len(frames), size+4*wantPackets)
		}
		if w.Seq != uint8(7+wantPackets) {
			t.Fatalf("size %d: next seq %d, want %d", size, w.Seq, 7+wantPackets)
		}
		if size == MaxPayload {
			// The protocol's rule (MySQL Source Code Documentation, Sending
			// More Than 16Mb), verified against MariaDB: ff ff ff 00 then
			// an empty packet 00 00 00 01.
			if !bytes.Equal(frames[:4], []byte{0xff, 0xff, 0xff, 7}) || !bytes.Equal(frames[len(frames)-4:], []byte{0, 0, 0, 8}) {
				t.Fatalf("exact multiple: head % x tail % x", frames[:4], frames[len(frames)-4:])
			}
		}
		r := NewPacketConn(wiretest.NewPipe(frames))
		r.Seq = 7
		got, err := r.ReadPacket()
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("size %d: read %d bytes, %v", size, len(got), err)
		}
		if _, err := r.ReadPacket(); !errors.Is(err, io.EOF) {
			t.Fatalf("size %d: after the message: %v, want EOF", size, err)
		}
	}
}

func TestPacketReadErrors(t *testing.T) {
	tests := []struct {
		name  string
		in    []byte
		limit int
		want  error
		msg   string
	}{
		{"out of order", []byte{1, 0, 0, 5, 0x0e}, 0, ErrOutOfOrder, "got sequence id 5, want 0"},
		{"short header", []byte{1, 0}, 0, io.ErrUnexpectedEOF, ""},
		{"short payload", []byte{9, 0, 0, 0, 1, 2}, 0, io.ErrUnexpectedEOF, ""},
		{"over limit", []byte{0, 0, 1, 0}, 1000, nil, "length 65536 exceeds limit 1000"},
		{"reassembly over limit", append(append([]byte{0xff, 0xff, 0xff, 0}, make([]byte, MaxPayload)...), 0xff, 0xff, 0xff, 1), MaxPayload + 10, nil, "reassembled length"},
	}
	for _, tc := range tests {
		r := NewPacketConn(wiretest.NewPipe(tc.in))
		if tc.limit > 0 {
			r.MaxMessage = tc.limit
		}
		_, err := r.ReadPacket()
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %v %q", tc.name, err, tc.want, tc.msg)
		}
	}
}

func TestPacketReaderAllocs(t *testing.T) {
	w := NewPacketConn(nil)
	for range 64 {
		w.ResetSeq()
		w.WritePacket([]byte("\x03SELECT c FROM sbtest1 WHERE id=42"))
	}
	r := NewPacketConn(&wiretest.Loop{Data: w.Wbuf})
	allocs := testing.AllocsPerRun(1000, func() {
		r.ResetSeq()
		if _, err := r.ReadPacket(); err != nil {
			t.Fatal(err)
		}
		r.ResetSeq()
		r.WritePacket([]byte{ComPing})
		r.Flush()
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per packet read and written, want 0", allocs)
	}
}

// TestUnsolicitedErr: MySQL's idle-timeout ERR arrives with sequence 0 while
// the client waits for 1; the client reports both facts.
func TestUnsolicitedErr(t *testing.T) {
	w := NewPacketConn(nil)
	w.WritePacket(AppendErr(nil, 4031, "HY000", "The client was disconnected by the server because of inactivity."))
	r := NewPacketConn(wiretest.NewPipe(w.Wbuf))
	r.Seq = 1
	_, err := r.ReadPacket()
	se := asServerError(err)
	if !errors.Is(err, ErrOutOfOrder) || se == nil || se.Code != 4031 {
		t.Fatalf("err = %v, want ErrOutOfOrder wrapping ServerError 4031", err)
	}
}

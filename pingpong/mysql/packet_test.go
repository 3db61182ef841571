package mysql

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// pipeRW is an in-memory stream: reads drain in, writes append to out.
type pipeRW struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (p *pipeRW) Read(b []byte) (int, error)  { return p.in.Read(b) }
func (p *pipeRW) Write(b []byte) (int, error) { return p.out.Write(b) }

// loopRW replays the same input forever and discards writes: a steady
// stream for allocation and speed checks.
type loopRW struct {
	data []byte
	off  int
}

func (l *loopRW) Read(b []byte) (int, error) {
	n := copy(b, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}
func (l *loopRW) Write(b []byte) (int, error) { return len(b), nil }

func TestPacketSplitRule(t *testing.T) {
	for _, size := range []int{0, 1, maxPayload - 1, maxPayload, maxPayload + 1, 2 * maxPayload} {
		payload := bytes.Repeat([]byte{0xAB}, size)
		w := newPacketConn(nil)
		w.seq = 7
		w.writePacket(payload)
		frames := w.wbuf
		// Headers: one per full chunk plus one short (maybe empty) packet.
		wantPackets := size/maxPayload + 1
		if len(frames) != size+4*wantPackets {
			t.Fatalf("size %d: %d framed bytes, want %d", size, len(frames), size+4*wantPackets)
		}
		if w.seq != uint8(7+wantPackets) {
			t.Fatalf("size %d: next seq %d, want %d", size, w.seq, 7+wantPackets)
		}
		if size == maxPayload {
			// The protocol's rule (MySQL Source Code Documentation, Sending
			// More Than 16Mb), verified against MariaDB: ff ff ff 00 then
			// an empty packet 00 00 00 01.
			if !bytes.Equal(frames[:4], []byte{0xff, 0xff, 0xff, 7}) || !bytes.Equal(frames[len(frames)-4:], []byte{0, 0, 0, 8}) {
				t.Fatalf("exact multiple: head % x tail % x", frames[:4], frames[len(frames)-4:])
			}
		}
		r := newPacketConn(&pipeRW{in: bytes.NewReader(frames)})
		r.seq = 7
		got, err := r.readPacket()
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("size %d: read %d bytes, %v", size, len(got), err)
		}
		if _, err := r.readPacket(); !errors.Is(err, io.EOF) {
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
		{"reassembly over limit", append(append([]byte{0xff, 0xff, 0xff, 0}, make([]byte, maxPayload)...), 0xff, 0xff, 0xff, 1), maxPayload + 10, nil, "reassembled length"},
	}
	for _, tc := range tests {
		r := newPacketConn(&pipeRW{in: bytes.NewReader(tc.in)})
		if tc.limit > 0 {
			r.maxMessage = tc.limit
		}
		_, err := r.readPacket()
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %v %q", tc.name, err, tc.want, tc.msg)
		}
	}
}

func TestPacketReaderAllocs(t *testing.T) {
	w := newPacketConn(nil)
	for range 64 {
		w.resetSeq()
		w.writePacket([]byte("\x03SELECT c FROM sbtest1 WHERE id=42"))
	}
	r := newPacketConn(&loopRW{data: w.wbuf})
	allocs := testing.AllocsPerRun(1000, func() {
		r.resetSeq()
		if _, err := r.readPacket(); err != nil {
			t.Fatal(err)
		}
		r.resetSeq()
		r.writePacket([]byte{comPing})
		r.flush()
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per packet read and written, want 0", allocs)
	}
}

// TestUnsolicitedErr: MySQL's idle-timeout ERR arrives with sequence 0 while
// the client waits for 1; the client reports both facts.
func TestUnsolicitedErr(t *testing.T) {
	w := newPacketConn(nil)
	w.writePacket(appendErr(nil, 4031, "HY000", "The client was disconnected by the server because of inactivity."))
	r := newPacketConn(&pipeRW{in: bytes.NewReader(w.wbuf)})
	r.seq = 1
	_, err := r.readPacket()
	se := asServerError(err)
	if !errors.Is(err, ErrOutOfOrder) || se == nil || se.Code != 4031 {
		t.Fatalf("err = %v, want ErrOutOfOrder wrapping ServerError 4031", err)
	}
}

package wiretest

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// Pipe is an in-memory stream: reads drain In, writes append to Out.
type Pipe struct {
	In  *bytes.Reader
	Out bytes.Buffer
}

// NewPipe is a Pipe whose reads return in.
func NewPipe(in []byte) *Pipe { return &Pipe{In: bytes.NewReader(in)} }

func (p *Pipe) Read(b []byte) (int, error)  { return p.In.Read(b) }
func (p *Pipe) Write(b []byte) (int, error) { return p.Out.Write(b) }

// Loop replays Data forever and discards writes: a steady stream for
// allocation and speed checks.
type Loop struct {
	Data []byte
	off  int
}

func (l *Loop) Read(b []byte) (int, error) {
	n := copy(b, l.Data[l.off:])
	l.off = (l.off + n) % len(l.Data)
	return n, nil
}

func (l *Loop) Write(b []byte) (int, error) { return len(b), nil }

// Echo is an in-memory peer that echoes: a read returns, once, what the
// last write left in Buf (as much of it as Buf holds). It allocates
// nothing per call, so a benchmark through it measures the codec alone.
type Echo struct {
	Buf []byte
	n   int
}

func (e *Echo) Write(b []byte) (int, error) { e.n = copy(e.Buf, b); return len(b), nil }
func (e *Echo) Read(b []byte) (int, error)  { n := copy(b, e.Buf[:e.n]); e.n = 0; return n, nil }

// Unhex decodes hex with spaces and newlines, as protocol captures are
// printed.
func Unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// CapturedGreeting is a greeting captured from MariaDB 10.11.19 on
// loopback (Protocol::HandshakeV10), in Unhex's form.
const CapturedGreeting = `0a 352e352e352d31302e31312e31392d4d6172696144422d302b6465623132753100 05000000
2a3a295a6d345a4b 00 fef7 08 0200 ff81 15 000000000000 1d000000
455a73563239646e79394d57 00 6d7973716c5f6e61746976655f70617373776f726400`

// CapturedResponse is an accepted login of user bench, password secret
// (Protocol::HandshakeResponse41), in Unhex's form.
const CapturedResponse = `04a22a01 00000001 2d 0000000000000000000000000000000000000000000000 62656e636800
14 e637cee3a4faa27ec811ff0e2e241ee3ecfb20dc 6d7973716c5f6e61746976655f70617373776f726400`

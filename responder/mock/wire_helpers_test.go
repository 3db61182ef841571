package mock

import (
	"bytes"
	"encoding/hex"

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

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Captured from MariaDB 10.11.19 on loopback (Protocol::HandshakeV10).
const capturedGreeting = `0a 352e352e352d31302e31312e31392d4d6172696144422d302b6465623132753100 05000000
2a3a295a6d345a4b 00 fef7 08 0200 ff81 15 000000000000 1d000000
455a73563239646e79394d57 00 6d7973716c5f6e61746976655f70617373776f726400`

// Captured accepted response of user bench, password secret (Protocol::HandshakeResponse41).
const capturedResponse = `04a22a01 00000001 2d 0000000000000000000000000000000000000000000000 62656e636800
14 e637cee3a4faa27ec811ff0e2e241ee3ecfb20dc 6d7973716c5f6e61746976655f70617373776f726400`

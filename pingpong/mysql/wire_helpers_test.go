package mysql

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

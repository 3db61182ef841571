package wire

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
)

// Every decoder of peer bytes gets a fuzz target: malformed input must give
// an error, never a panic or an allocation beyond what the input declares
// and the limits allow.

func FuzzReadPacket(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0x0e})
	f.Add([]byte{0xff, 0xff, 0xff, 0, 1, 2})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1})
	f.Add([]byte{1, 0, 0, 3, 0x0e})
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 20
		r := NewPacketConn(wiretest.NewPipe(in))
		r.MaxMessage = limit
		for {
			p, err := r.ReadPacket()
			if err != nil {
				return
			}
			if len(p) > limit || len(p) > len(in) {
				t.Fatalf("payload of %d bytes from %d bytes of input", len(p), len(in))
			}
		}
	})
}

func FuzzParseGreeting(f *testing.F) {
	f.Add(wiretest.Unhex(f, wiretest.CapturedGreeting))
	g, _ := ParseGreeting(wiretest.Unhex(f, wiretest.CapturedGreeting))
	g.Caps |= CapLongPassword
	f.Add(AppendGreeting(nil, &g))
	f.Add([]byte{10, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		g, err := ParseGreeting(in)
		if err == nil && g.Caps&CapSecureConnection == 0 {
			t.Fatal("greeting without SECURE_CONNECTION accepted")
		}
		if err != nil && !strings.HasPrefix(err.Error(), "mysql: decode greeting: ") {
			t.Fatalf("error %q does not name the packet", err)
		}
	})
}

func FuzzParseHandshakeResponse(f *testing.F) {
	f.Add(wiretest.Unhex(f, wiretest.CapturedResponse))
	r := HandshakeResponse{Caps: ClientWantedCaps | CapConnectWithDB | CapConnectAttrs, User: []byte("u"), Auth: []byte("x"), Db: []byte("db"), Plugin: []byte(PluginNative)}
	b := AppendHandshakeResponse(nil, &r)
	f.Add(append(b, 4, 1, 'k', 1, 'v'))
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := ParseHandshakeResponse(in)
		if err == nil && len(r.User)+len(r.Auth)+len(r.Db)+len(r.Plugin) > len(in) {
			t.Fatal("fields longer than the packet")
		}
	})
}

func FuzzParseOKErr(f *testing.F) {
	f.Add(wiretest.Unhex(f, "00 00 00 0200 0000"))
	f.Add(wiretest.Unhex(f, "fe 00 00 0200 0000"))
	f.Add(wiretest.Unhex(f, "fe 0000 0200"))
	f.Add(wiretest.Unhex(f, "ff 1704 233038533031 556e6b6e6f776e20636f6d6d616e64"))
	f.Add(wiretest.Unhex(f, "00 01000000 0100 0100 00 0000"))
	f.Add(AppendAuthSwitch(nil, PluginNative, []byte("01234567890123456789")))
	f.Fuzz(func(t *testing.T, in []byte) {
		ParseOK(in)
		ParseEOF(in)
		ParseStmtPrepareOK(in)
		ParseAuthSwitch(in)
		if len(in) > 0 && in[0] == HeaderErr {
			err := ParseErr(in)
			if se := asServerError(err); se != nil && len(se.Message) > len(in) {
				t.Fatal("message longer than the packet")
			}
		}
	})
}

func FuzzParseColumnDef(f *testing.F) {
	f.Add(wiretest.Unhex(f, "03646566 00 00 00 01 31 00 0c 3f00 01000000 03 8100 00 0000"))
	c := ColumnDef{Schema: []byte("sbtest"), Table: []byte("sbtest1"), OrgTable: []byte("sbtest1"), Name: []byte("c"), OrgName: []byte("c"),
		Charset: ClientCharsetUTF8MB4, Length: 480, ColType: TypeString, Flags: FlagNotNull}
	f.Add(AppendColumnDef(nil, &c))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := ParseColumnDef(in)
		if err != nil {
			return
		}
		// Whatever parses re-encodes and parses to the same definition.
		c2, err := ParseColumnDef(AppendColumnDef(nil, &c))
		if err != nil || !bytes.Equal(c.Name, c2.Name) || c.ColType != c2.ColType || c.Length != c2.Length {
			t.Fatalf("round trip: %+v -> %+v, %v", c, c2, err)
		}
	})
}

func FuzzCheckRow(f *testing.F) {
	f.Add(byte(1), []byte{TypeString}, wiretest.Unhex(f, "01 31"))
	f.Add(byte(2), []byte{TypeLong, TypeLongLong}, wiretest.Unhex(f, "00 00 01000000 0200000000000000"))
	f.Add(byte(1), []byte{TypeDateTime}, wiretest.Unhex(f, "00 00 04 e8070b1d"))
	f.Add(byte(2), []byte{TypeVarString, TypeNull}, wiretest.Unhex(f, "fb fc0100 61"))
	f.Fuzz(func(t *testing.T, cols byte, types []byte, row []byte) {
		CheckTextRow(row, int(cols))
		CheckBinaryRow(row, types)
	})
}

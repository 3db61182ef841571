package wire

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
)

func TestParseGreetingCaptured(t *testing.T) {
	g, err := ParseGreeting(wiretest.Unhex(t, wiretest.CapturedGreeting))
	if err != nil {
		t.Fatal(err)
	}
	if string(g.Version) != "5.5.5-10.11.19-MariaDB-0+deb12u1" || g.ConnID != 5 || g.Caps != 0x81FFF7FE ||
		g.Charset != 8 || g.Status != 2 || !g.MariaDB || g.ExtCaps != 0x1D || string(g.Plugin) != PluginNative {
		t.Fatalf("parsed %+v", g)
	}
	if got := hex.EncodeToString(g.Nonce[:]); got != "2a3a295a6d345a4b455a73563239646e79394d57" {
		t.Fatalf("nonce %s", got)
	}
	// Re-encoding the parsed greeting gives back the captured bytes.
	if out := AppendGreeting(nil, &g); !bytes.Equal(out, wiretest.Unhex(t, wiretest.CapturedGreeting)) {
		t.Fatalf("round trip:\n got %x\nwant %x", out, wiretest.Unhex(t, wiretest.CapturedGreeting))
	}
}

func TestParseGreetingErrors(t *testing.T) {
	full := wiretest.Unhex(t, wiretest.CapturedGreeting)
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "protocol version truncated"},
		{"protocol 9", append([]byte{9}, full[1:]...), "protocol version 9"},
		{"no version NUL", full[:10], "server version: no NUL"},
		{"short nonce", full[:40], "auth-plugin-data part 1 truncated"},
		{"pre-4.1", full[:49], "pre-4.1 server"},
		{"cut reserved", full[:60], "reserved truncated"},
		{"cut part 2", full[:70], "auth-plugin-data part 2 truncated"},
	}
	for _, tc := range tests {
		_, err := ParseGreeting(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// A missing NUL after the plugin name is tolerated.
	if g, err := ParseGreeting(full[:len(full)-1]); err != nil || string(g.Plugin) != PluginNative {
		t.Errorf("no final NUL: %q, %v", g.Plugin, err)
	}
}

func TestHandshakeResponseCaptured(t *testing.T) {
	in := wiretest.Unhex(t, wiretest.CapturedResponse)
	r, err := ParseHandshakeResponse(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Caps != 0x012AA204 || r.Charset != 45 || string(r.User) != "bench" || string(r.Plugin) != PluginNative {
		t.Fatalf("parsed %+v", r)
	}
	// The client's encoder, fed what Connect would compute against the
	// captured greeting, produces the captured bytes.
	g, _ := ParseGreeting(wiretest.Unhex(t, wiretest.CapturedGreeting))
	auth := NativeToken(nil, g.Nonce[:], "secret")
	mine := HandshakeResponse{Caps: ClientWantedCaps & g.Caps, MaxPacket: MaxPayload + 1, Charset: 45,
		User: []byte("bench"), Auth: auth, Plugin: []byte(PluginNative)}
	if out := AppendHandshakeResponse(nil, &mine); !bytes.Equal(out, in) {
		t.Fatalf("encode:\n got %x\nwant %x", out, in)
	}
	if !CheckToken(PluginNative, g.Nonce[:], "secret", r.Auth) {
		t.Fatal("server-side check rejects the captured token")
	}
}

// TestHandshakeResponseExtCaps: a MariaDB client, which clears
// CLIENT_MYSQL, puts its extended capabilities in the last 4 reserved
// bytes; with CLIENT_MYSQL set those bytes are zero and not read.
func TestHandshakeResponseExtCaps(t *testing.T) {
	r := HandshakeResponse{Caps: ClientWantedCaps, ExtCaps: ExtCapCacheMetadata | ExtCapExtendedMetadata, Charset: 45,
		User: []byte("u"), Auth: []byte("x"), Plugin: []byte(PluginNative)}
	b := AppendHandshakeResponse(nil, &r)
	if got := b[28:32]; !bytes.Equal(got, []byte{0x18, 0, 0, 0}) {
		t.Fatalf("reserved bytes 19-22: %x, want 18000000", got)
	}
	back, err := ParseHandshakeResponse(b)
	if err != nil || back.ExtCaps != r.ExtCaps {
		t.Fatalf("parsed ext caps 0x%x, %v; want 0x%x", back.ExtCaps, err, r.ExtCaps)
	}
	r.Caps |= CapLongPassword
	b = AppendHandshakeResponse(nil, &r)
	if got := b[28:32]; !bytes.Equal(got, []byte{0, 0, 0, 0}) {
		t.Fatalf("CLIENT_MYSQL set: reserved bytes 19-22 %x, want zero", got)
	}
	b[28] = 0x10
	if back, err := ParseHandshakeResponse(b); err != nil || back.ExtCaps != 0 {
		t.Fatalf("CLIENT_MYSQL set: parsed ext caps 0x%x, %v; want 0", back.ExtCaps, err)
	}
}

func TestAuthTokenVectors(t *testing.T) {
	tests := []struct {
		name, plugin, nonce, password, want string
	}{
		{"N1", PluginNative, "2a3a295a6d345a4b455a73563239646e79394d57", "secret", "e637cee3a4faa27ec811ff0e2e241ee3ecfb20dc"},
		{"N2", PluginNative, "0102030405060708090a0b0c0d0e0f1011121314", "password", "c17d6009a5cb47e59f7483fcf05553bbbf7dd0d6"},
		{"N3", PluginNative, "46725c5e01260b743f7217657e671a5f51111815", "secret", "35b18c9ffbbd7f356dfcac32d3c0f0a41a30cf2d"},
		{"S1", PluginCachingSHA2, "0102030405060708090a0b0c0d0e0f1011121314", "password", "f7ab1c623a6e98dceab35e926290e5746a3141116115f4dd8ccca994393eccdd"},
		{"S2", PluginCachingSHA2, "0a2f4a6f4b492230584c724a250d035052021715", "secret", "f490e76f66d9d86665ce54d98c78d0acfe2fb0b08b423da807144873d30b312c"},
		{"S3", PluginCachingSHA2, "5a694a7e1e3025380317737f45162954207b2b76", "secret", "662005238fa18cf1abe8388b2b0e6bc4f9aa933cdccc78b2d60fb8961a3d39eb"},
		{"empty native", PluginNative, "0102030405060708090a0b0c0d0e0f1011121314", "", ""},
		{"empty sha2", PluginCachingSHA2, "0102030405060708090a0b0c0d0e0f1011121314", "", ""},
	}
	for _, tc := range tests {
		got, err := AuthToken(nil, tc.plugin, wiretest.Unhex(t, tc.nonce), tc.password)
		if err != nil || hex.EncodeToString(got) != tc.want {
			t.Errorf("%s: token %x, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	if _, err := AuthToken(nil, "client_ed25519", nil, "x"); err == nil || !strings.Contains(err.Error(), "client_ed25519") {
		t.Errorf("ed25519: %v, want an error naming the plugin", err)
	}
}

func TestRSAFullAuthRoundTrip(t *testing.T) {
	nonce := wiretest.Unhex(t, "0102030405060708090a0b0c0d0e0f1011121314")
	if got := hex.EncodeToString(XorNonce("password", nonce)); got != "716370777269756c09" {
		t.Fatalf("plaintext %s, want 716370777269756c09 (password+NUL XOR nonce)", got)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	ct, err := EncryptPassword(pubPEM, "password", nonce)
	if err != nil {
		t.Fatal(err)
	}
	if pw, err := DecryptPassword(key, ct, nonce); err != nil || pw != "password" {
		t.Fatalf("decrypt = %q, %v", pw, err)
	}
	if _, err := EncryptPassword([]byte("not pem"), "password", nonce); err == nil {
		t.Fatal("garbage key accepted")
	}
}

func TestOKErrEOF(t *testing.T) {
	// COM_PING reply captured from MariaDB: 07000001 00 00 00 0200 0000.
	ok, err := ParseOK(wiretest.Unhex(t, "00 00 00 0200 0000"))
	if err != nil || ok.Status != ServerStatusAutocommit || ok.AffectedRows != 0 {
		t.Fatalf("OK = %+v, %v", ok, err)
	}
	if out := AppendOK(nil, HeaderOK, 0, ServerStatusAutocommit); !bytes.Equal(out, wiretest.Unhex(t, "00 00 00 0200 0000")) {
		t.Fatalf("appendOK = %x", out)
	}
	ok, err = ParseOK(wiretest.Unhex(t, "00 fc1027 05 0300 0100 696e666f"))
	if err != nil || ok.AffectedRows != 10000 || ok.LastInsertID != 5 || ok.Status != 3 || ok.Warnings != 1 {
		t.Fatalf("OK with info = %+v, %v", ok, err)
	}
	if _, err := ParseOK(wiretest.Unhex(t, "00 fd0102")); err == nil || !strings.Contains(err.Error(), "affected rows truncated") {
		t.Fatalf("short lenenc: %v", err)
	}
	if st, err := ParseEOF(wiretest.Unhex(t, "fe 0000 0200")); err != nil || st != 2 {
		t.Fatalf("EOF = %d, %v", st, err)
	}
	if out := AppendEOF(nil, 2); !bytes.Equal(out, wiretest.Unhex(t, "fe 0000 0200")) {
		t.Fatalf("appendEOF = %x", out)
	}
	errTests := []struct {
		in   string
		want ServerError
	}{
		{"ff 1704 233038533031 556e6b6e6f776e20636f6d6d616e64", ServerError{1047, "08S01", "Unknown command"}},
		{"ff 1504 233238303030 4163636573732064656e696564", ServerError{1045, "28000", "Access denied"}},
		{"ff 1504 6f6c64", ServerError{1045, "", "old"}}, // pre-4.1: no SQLSTATE
	}
	for _, tc := range errTests {
		se := asServerError(ParseErr(wiretest.Unhex(t, tc.in)))
		if se == nil || *se != tc.want {
			t.Errorf("parseErr(%s) = %+v, want %+v", tc.in, se, tc.want)
		}
	}
	if out := AppendErr(nil, 1047, "08S01", "Unknown command"); !bytes.Equal(out, wiretest.Unhex(t, errTests[0].in)) {
		t.Errorf("appendErr = %x", out)
	}
	if err := ParseErr([]byte{0xff, 1}); err == nil || !strings.Contains(err.Error(), "error code truncated") {
		t.Errorf("short ERR: %v", err)
	}
}

// SELECT 1 with DEPRECATE_EOF, captured (Text Resultset).
func TestColumnDefAndRowsCaptured(t *testing.T) {
	def := wiretest.Unhex(t, "03646566 00 00 00 01 31 00 0c 3f00 01000000 03 8100 00 0000")
	c, err := ParseColumnDef(def)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Name) != "1" || c.Charset != 63 || c.Length != 1 || c.ColType != TypeLong || c.Flags != 0x81 {
		t.Fatalf("column %+v", c)
	}
	if out := AppendColumnDef(nil, &c); !bytes.Equal(out, def) {
		t.Fatalf("round trip %x", out)
	}
	if err := CheckTextRow(wiretest.Unhex(t, "01 31"), 1); err != nil {
		t.Fatal(err)
	}
	if !IsTerminator(wiretest.Unhex(t, "fe 00 00 0200 0000")) || IsTerminator(wiretest.Unhex(t, "01 31")) {
		t.Fatal("isTerminator")
	}
	rowTests := []struct {
		name  string
		row   string
		types []byte
		want  string // "" = valid
	}{
		{"text NULL", "fb 0161", nil, ""},
		{"binary string", "00 00 0461626364", []byte{TypeString}, ""},
		{"binary long+longlong", "00 00 01000000 0200000000000000", []byte{TypeLong, TypeLongLong}, ""},
		{"binary NULL second", "00 08 01000000", []byte{TypeLong, TypeLong}, ""},
		{"binary datetime", "00 00 04 e8070b1d", []byte{TypeDateTime}, ""},
		{"binary bad header", "01 00 00", []byte{TypeLong}, "header 0x01"},
		{"binary short value", "00 00 0100", []byte{TypeLong}, "fixed-size value truncated"},
		{"binary trailing", "00 00 01000000 ff", []byte{TypeLong}, "1 bytes left"},
		{"binary lenenc too long", "00 00 fc ff00 61", []byte{TypeVarString}, "declared length 255"},
	}
	for _, tc := range rowTests {
		var err error
		if tc.types == nil {
			err = CheckTextRow(wiretest.Unhex(t, tc.row), 2)
		} else {
			err = CheckBinaryRow(wiretest.Unhex(t, tc.row), tc.types)
		}
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, bad := range []struct{ in, want string }{
		{"03 646566 00 00 00 01", "name: declared length 1"},
		{"03 646565 00", "catalog \"dee\""},
		{"03646566 00 00 00 01 31 00 0c 3f00", "column length truncated"},
		{"03646566 00 00 00 fe ffffffffffffff7f", "declared length"},
	} {
		if _, err := ParseColumnDef(wiretest.Unhex(t, bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseColumnDef(%s) = %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestLenEnc(t *testing.T) {
	for _, v := range []uint64{0, 1, 250, 251, 0xFFFF, 0x10000, 0xFFFFFF, 0x1000000, 1<<64 - 1} {
		b := AppendLenEncInt(nil, v)
		d := Decoder{B: b, What: "test"}
		got, null := d.LenEncInt("v")
		if d.Err != nil || null || got != v || d.Remaining() != 0 {
			t.Errorf("lenenc %d: encoded %x decoded %d null=%v err=%v", v, b, got, null, d.Err)
		}
	}
	d := Decoder{B: []byte{0xfb}, What: "test"}
	if _, null := d.LenEncInt("v"); !null {
		t.Error("0xFB is not NULL")
	}
	d = Decoder{B: []byte{0xff}, What: "test"}
	if d.LenEncInt("v"); d.Err == nil {
		t.Error("0xFF accepted as a length prefix")
	}
}

func TestPrepareOKCaptured(t *testing.T) {
	in := wiretest.Unhex(t, "00 01000000 0100 0100 00 0000")
	p, err := ParseStmtPrepareOK(in)
	if err != nil || p.Id != 1 || p.Columns != 1 || p.Params != 1 {
		t.Fatalf("prepare OK = %+v, %v", p, err)
	}
	if out := AppendStmtPrepareOK(nil, &p); !bytes.Equal(out, in) {
		t.Fatalf("round trip %x", out)
	}
}

func asServerError(err error) *ServerError {
	var se *ServerError
	if errors.As(err, &se) {
		return se
	}
	return nil
}

package mysql

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// unhex decodes hex with spaces and newlines, as protocol captures
// are printed.
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

func TestParseGreetingCaptured(t *testing.T) {
	g, err := parseGreeting(unhex(t, capturedGreeting))
	if err != nil {
		t.Fatal(err)
	}
	if string(g.version) != "5.5.5-10.11.19-MariaDB-0+deb12u1" || g.connID != 5 || g.caps != 0x81FFF7FE ||
		g.charset != 8 || g.status != 2 || !g.mariaDB || g.extCaps != 0x1D || string(g.plugin) != pluginNative {
		t.Fatalf("parsed %+v", g)
	}
	if got := hex.EncodeToString(g.nonce[:]); got != "2a3a295a6d345a4b455a73563239646e79394d57" {
		t.Fatalf("nonce %s", got)
	}
	// Re-encoding the parsed greeting gives back the captured bytes.
	if out := appendGreeting(nil, &g); !bytes.Equal(out, unhex(t, capturedGreeting)) {
		t.Fatalf("round trip:\n got %x\nwant %x", out, unhex(t, capturedGreeting))
	}
}

func TestParseGreetingErrors(t *testing.T) {
	full := unhex(t, capturedGreeting)
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
		_, err := parseGreeting(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// A missing NUL after the plugin name is tolerated.
	if g, err := parseGreeting(full[:len(full)-1]); err != nil || string(g.plugin) != pluginNative {
		t.Errorf("no final NUL: %q, %v", g.plugin, err)
	}
}

// Captured accepted response of user bench, password secret (Protocol::HandshakeResponse41).
const capturedResponse = `04a22a01 00000001 2d 0000000000000000000000000000000000000000000000 62656e636800
14 e637cee3a4faa27ec811ff0e2e241ee3ecfb20dc 6d7973716c5f6e61746976655f70617373776f726400`

func TestHandshakeResponseCaptured(t *testing.T) {
	in := unhex(t, capturedResponse)
	r, err := parseHandshakeResponse(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.caps != 0x012AA204 || r.charset != 45 || string(r.user) != "bench" || string(r.plugin) != pluginNative {
		t.Fatalf("parsed %+v", r)
	}
	// The client's encoder, fed what Connect would compute against the
	// captured greeting, produces the captured bytes.
	g, _ := parseGreeting(unhex(t, capturedGreeting))
	auth := nativeToken(nil, g.nonce[:], "secret")
	mine := handshakeResponse{caps: clientWantedCaps & g.caps, maxPacket: maxPayload + 1, charset: 45,
		user: []byte("bench"), auth: auth, plugin: []byte(pluginNative)}
	if out := appendHandshakeResponse(nil, &mine); !bytes.Equal(out, in) {
		t.Fatalf("encode:\n got %x\nwant %x", out, in)
	}
	if !checkToken(pluginNative, g.nonce[:], "secret", r.auth) {
		t.Fatal("server-side check rejects the captured token")
	}
}

func TestAuthTokenVectors(t *testing.T) {
	tests := []struct {
		name, plugin, nonce, password, want string
	}{
		{"N1", pluginNative, "2a3a295a6d345a4b455a73563239646e79394d57", "secret", "e637cee3a4faa27ec811ff0e2e241ee3ecfb20dc"},
		{"N2", pluginNative, "0102030405060708090a0b0c0d0e0f1011121314", "password", "c17d6009a5cb47e59f7483fcf05553bbbf7dd0d6"},
		{"N3", pluginNative, "46725c5e01260b743f7217657e671a5f51111815", "secret", "35b18c9ffbbd7f356dfcac32d3c0f0a41a30cf2d"},
		{"S1", pluginCachingSHA2, "0102030405060708090a0b0c0d0e0f1011121314", "password", "f7ab1c623a6e98dceab35e926290e5746a3141116115f4dd8ccca994393eccdd"},
		{"S2", pluginCachingSHA2, "0a2f4a6f4b492230584c724a250d035052021715", "secret", "f490e76f66d9d86665ce54d98c78d0acfe2fb0b08b423da807144873d30b312c"},
		{"S3", pluginCachingSHA2, "5a694a7e1e3025380317737f45162954207b2b76", "secret", "662005238fa18cf1abe8388b2b0e6bc4f9aa933cdccc78b2d60fb8961a3d39eb"},
		{"empty native", pluginNative, "0102030405060708090a0b0c0d0e0f1011121314", "", ""},
		{"empty sha2", pluginCachingSHA2, "0102030405060708090a0b0c0d0e0f1011121314", "", ""},
	}
	for _, tc := range tests {
		got, err := authToken(nil, tc.plugin, unhex(t, tc.nonce), tc.password)
		if err != nil || hex.EncodeToString(got) != tc.want {
			t.Errorf("%s: token %x, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	if _, err := authToken(nil, "client_ed25519", nil, "x"); err == nil || !strings.Contains(err.Error(), "client_ed25519") {
		t.Errorf("ed25519: %v, want an error naming the plugin", err)
	}
}

func TestRSAFullAuthRoundTrip(t *testing.T) {
	nonce := unhex(t, "0102030405060708090a0b0c0d0e0f1011121314")
	if got := hex.EncodeToString(xorNonce("password", nonce)); got != "716370777269756c09" {
		t.Fatalf("plaintext %s, want 716370777269756c09 (password+NUL XOR nonce)", got)
	}
	s, err := NewServer(ServerConfig{Auth: pluginCachingSHA2})
	if err != nil {
		t.Fatal(err)
	}
	ct, err := encryptPassword(s.pubPEM, "password", nonce)
	if err != nil {
		t.Fatal(err)
	}
	if pw, err := decryptPassword(s.key, ct, nonce); err != nil || pw != "password" {
		t.Fatalf("decrypt = %q, %v", pw, err)
	}
	if _, err := encryptPassword([]byte("not pem"), "password", nonce); err == nil {
		t.Fatal("garbage key accepted")
	}
}

func TestOKErrEOF(t *testing.T) {
	// COM_PING reply captured from MariaDB: 07000001 00 00 00 0200 0000.
	ok, err := parseOK(unhex(t, "00 00 00 0200 0000"))
	if err != nil || ok.status != serverStatusAutocommit || ok.affectedRows != 0 {
		t.Fatalf("OK = %+v, %v", ok, err)
	}
	if out := appendOK(nil, headerOK, 0, serverStatusAutocommit); !bytes.Equal(out, unhex(t, "00 00 00 0200 0000")) {
		t.Fatalf("appendOK = %x", out)
	}
	ok, err = parseOK(unhex(t, "00 fc1027 05 0300 0100 696e666f"))
	if err != nil || ok.affectedRows != 10000 || ok.lastInsertID != 5 || ok.status != 3 || ok.warnings != 1 {
		t.Fatalf("OK with info = %+v, %v", ok, err)
	}
	if _, err := parseOK(unhex(t, "00 fd0102")); err == nil || !strings.Contains(err.Error(), "affected rows truncated") {
		t.Fatalf("short lenenc: %v", err)
	}
	if st, err := parseEOF(unhex(t, "fe 0000 0200")); err != nil || st != 2 {
		t.Fatalf("EOF = %d, %v", st, err)
	}
	if out := appendEOF(nil, 2); !bytes.Equal(out, unhex(t, "fe 0000 0200")) {
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
		se := asServerError(parseErr(unhex(t, tc.in)))
		if se == nil || *se != tc.want {
			t.Errorf("parseErr(%s) = %+v, want %+v", tc.in, se, tc.want)
		}
	}
	if out := appendErr(nil, 1047, "08S01", "Unknown command"); !bytes.Equal(out, unhex(t, errTests[0].in)) {
		t.Errorf("appendErr = %x", out)
	}
	if err := parseErr([]byte{0xff, 1}); err == nil || !strings.Contains(err.Error(), "error code truncated") {
		t.Errorf("short ERR: %v", err)
	}
}

// SELECT 1 with DEPRECATE_EOF, captured (Text Resultset).
func TestColumnDefAndRowsCaptured(t *testing.T) {
	def := unhex(t, "03646566 00 00 00 01 31 00 0c 3f00 01000000 03 8100 00 0000")
	c, err := parseColumnDef(def)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.name) != "1" || c.charset != 63 || c.length != 1 || c.colType != typeLong || c.flags != 0x81 {
		t.Fatalf("column %+v", c)
	}
	if out := appendColumnDef(nil, &c); !bytes.Equal(out, def) {
		t.Fatalf("round trip %x", out)
	}
	if err := checkTextRow(unhex(t, "01 31"), 1); err != nil {
		t.Fatal(err)
	}
	if !isTerminator(unhex(t, "fe 00 00 0200 0000")) || isTerminator(unhex(t, "01 31")) {
		t.Fatal("isTerminator")
	}
	rowTests := []struct {
		name  string
		row   string
		types []byte
		want  string // "" = valid
	}{
		{"text NULL", "fb 0161", nil, ""},
		{"binary string", "00 00 0461626364", []byte{typeString}, ""},
		{"binary long+longlong", "00 00 01000000 0200000000000000", []byte{typeLong, typeLongLong}, ""},
		{"binary NULL second", "00 08 01000000", []byte{typeLong, typeLong}, ""},
		{"binary datetime", "00 00 04 e8070b1d", []byte{typeDateTime}, ""},
		{"binary bad header", "01 00 00", []byte{typeLong}, "header 0x01"},
		{"binary short value", "00 00 0100", []byte{typeLong}, "fixed-size value truncated"},
		{"binary trailing", "00 00 01000000 ff", []byte{typeLong}, "1 bytes left"},
		{"binary lenenc too long", "00 00 fc ff00 61", []byte{typeVarString}, "declared length 255"},
	}
	for _, tc := range rowTests {
		var err error
		if tc.types == nil {
			err = checkTextRow(unhex(t, tc.row), 2)
		} else {
			err = checkBinaryRow(unhex(t, tc.row), tc.types)
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
		if _, err := parseColumnDef(unhex(t, bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("parseColumnDef(%s) = %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestLenEnc(t *testing.T) {
	for _, v := range []uint64{0, 1, 250, 251, 0xFFFF, 0x10000, 0xFFFFFF, 0x1000000, 1<<64 - 1} {
		b := appendLenEncInt(nil, v)
		d := decoder{b: b, what: "test"}
		got, null := d.lenEncInt("v")
		if d.err != nil || null || got != v || d.remaining() != 0 {
			t.Errorf("lenenc %d: encoded %x decoded %d null=%v err=%v", v, b, got, null, d.err)
		}
	}
	d := decoder{b: []byte{0xfb}, what: "test"}
	if _, null := d.lenEncInt("v"); !null {
		t.Error("0xFB is not NULL")
	}
	d = decoder{b: []byte{0xff}, what: "test"}
	if d.lenEncInt("v"); d.err == nil {
		t.Error("0xFF accepted as a length prefix")
	}
}

func TestPrepareOKCaptured(t *testing.T) {
	in := unhex(t, "00 01000000 0100 0100 00 0000")
	p, err := parseStmtPrepareOK(in)
	if err != nil || p.id != 1 || p.columns != 1 || p.params != 1 {
		t.Fatalf("prepare OK = %+v, %v", p, err)
	}
	if out := appendStmtPrepareOK(nil, &p); !bytes.Equal(out, in) {
		t.Fatalf("round trip %x", out)
	}
}

package wire

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
)

// NativeToken is mysql_native_password's scramble (MySQL Source Code
// Documentation, Native Authentication):
// SHA1(password) XOR SHA1(nonce ‖ SHA1(SHA1(password))). An empty password
// sends an empty response.
func NativeToken(dst []byte, nonce []byte, password string) []byte {
	if password == "" {
		return dst
	}
	stage1 := sha1.Sum([]byte(password))
	stage2 := sha1.Sum(stage1[:])
	return appendScramble(dst, sha1.New(), stage1[:], nonce, stage2[:])
}

// Sha2Token is caching_sha2_password's scramble (MySQL Source Code
// Documentation, caching_sha2_password information):
// SHA256(p) XOR SHA256(SHA256(SHA256(p)) ‖ nonce).
func Sha2Token(dst []byte, nonce []byte, password string) []byte {
	if password == "" {
		return dst
	}
	d1 := sha256.Sum256([]byte(password))
	d2 := sha256.Sum256(d1[:])
	return appendScramble(dst, sha256.New(), d1[:], d2[:], nonce)
}

// appendScramble appends key XOR H(a ‖ b), H being the fresh hash h and
// key as long as its sum: both password plugins' scrambles take this shape.
func appendScramble(dst []byte, h hash.Hash, key, a, b []byte) []byte {
	h.Write(a)
	h.Write(b)
	n := len(dst)
	dst = h.Sum(dst)
	subtle.XORBytes(dst[n:], dst[n:], key)
	return dst
}

// AuthToken returns the first response for plugin, or an error for a plugin
// this package does not speak.
func AuthToken(dst []byte, plugin string, nonce []byte, password string) ([]byte, error) {
	switch plugin {
	case PluginNative:
		return NativeToken(dst, nonce, password), nil
	case PluginCachingSHA2:
		return Sha2Token(dst, nonce, password), nil
	}
	return dst, fmt.Errorf("mysql: auth plugin %q is not supported (only %s and %s)", plugin, PluginNative, PluginCachingSHA2)
}

// CheckToken compares a client's response with the one expected from the
// known password, in constant time.
func CheckToken(plugin string, nonce []byte, password string, got []byte) bool {
	var buf [32]byte
	want, err := AuthToken(buf[:0], plugin, nonce, password)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare(want, got) == 1 && len(want) == len(got)
}

// XorNonce is the plaintext caching_sha2_password encrypts for full
// authentication over an insecure transport: (password ‖ NUL) XOR the nonce
// repeated.
func XorNonce(password string, nonce []byte) []byte {
	p := make([]byte, len(password)+1)
	copy(p, password)
	for i := range p {
		p[i] ^= nonce[i%len(nonce)]
	}
	return p
}

// EncryptPassword encrypts the password with the server's PEM public key
// using RSA-OAEP with SHA-1, which is what MySQL's server decrypts.
func EncryptPassword(pemKey []byte, password string, nonce []byte) ([]byte, error) {
	block, _ := pem.Decode(pemKey)
	if block == nil {
		return nil, errors.New("mysql: caching_sha2_password: server public key is not PEM")
	}
	var pub *rsa.PublicKey
	switch block.Type {
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("mysql: caching_sha2_password: parse server public key: %w", err)
		}
		var ok bool
		if pub, ok = k.(*rsa.PublicKey); !ok {
			return nil, fmt.Errorf("mysql: caching_sha2_password: server public key is %T, not RSA", k)
		}
	case "RSA PUBLIC KEY":
		k, err := x509.ParsePKCS1PublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("mysql: caching_sha2_password: parse server public key: %w", err)
		}
		pub = k
	default:
		return nil, fmt.Errorf("mysql: caching_sha2_password: server key block is %q, not a public key", block.Type)
	}
	ct, err := rsa.EncryptOAEP(sha1.New(), rand.Reader, pub, XorNonce(password, nonce), nil)
	if err != nil {
		return nil, fmt.Errorf("mysql: caching_sha2_password: encrypt password: %w", err)
	}
	return ct, nil
}

// DecryptPassword is the server side of EncryptPassword; it returns the
// password the client sent.
func DecryptPassword(key *rsa.PrivateKey, ct []byte, nonce []byte) (string, error) {
	pt, err := rsa.DecryptOAEP(sha1.New(), nil, key, ct, nil)
	if err != nil {
		return "", fmt.Errorf("mysql: caching_sha2_password: decrypt password: %w", err)
	}
	for i := range pt {
		pt[i] ^= nonce[i%len(nonce)]
	}
	if len(pt) == 0 || pt[len(pt)-1] != 0 {
		return "", errors.New("mysql: caching_sha2_password: decrypted password lacks its NUL terminator")
	}
	return string(pt[:len(pt)-1]), nil
}

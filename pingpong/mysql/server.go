package mysql

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
)

// ServerConfig shapes the mock mysqld. The zero value serves user "" with
// an empty password, mysql_native_password, one 120-byte row per SELECT.
type ServerConfig struct {
	User     string
	Password string
	// Auth is the account's plugin: "mysql_native_password" (default) or
	// "caching_sha2_password".
	Auth string
	// Rows is the number of rows every SELECT returns; 0 means 1.
	Rows int
	// RowBytes is the width of the c column's value; 0 means 120, the width
	// of sysbench's c CHAR(120).
	RowBytes int
	// Service, when set, runs once per statement (COM_QUERY,
	// COM_STMT_EXECUTE) before the reply is written, to model the query's
	// own cost.
	Service func()
	// Version is the greeting's server version; "" means "8.0.36-hoplat".
	// A version containing "MariaDB" makes the greeting MariaDB-flavoured
	// (capability bit 0 clear, extended capabilities 0).
	Version string
}

// String describes the config with the password redacted.
func (c ServerConfig) String() string {
	return fmt.Sprintf("{User:%q Password:%s Auth:%q Rows:%d RowBytes:%d Service:%v Version:%q}",
		c.User, redact(c.Password), c.Auth, c.Rows, c.RowBytes, c.Service != nil, c.Version)
}

// GoString is String for %#v.
func (c ServerConfig) GoString() string { return "mysql.ServerConfig" + c.String() }

// Config returns the configuration with defaults filled in.
func (s *Server) Config() ServerConfig { return s.cfg }

// Server answers the MySQL protocol with canned results. One Server serves
// any number of connections concurrently; it holds what they share: the
// pre-encoded responses, the RSA key and the caching_sha2_password cache.
type Server struct {
	cfg     ServerConfig
	mariaDB bool
	caps    uint32 // capabilities the greeting offers
	connIDs atomic.Uint32

	key    *rsa.PrivateKey // caching_sha2_password full authentication
	pubPEM []byte

	cacheMu sync.Mutex
	cached  map[string]bool // users that completed full authentication

	// Responses encoded once with sequence ids from 1, indexed by whether
	// DEPRECATE_EOF was negotiated.
	ok       [2]canned
	textRows [2]canned
	binRows  [2]canned
	colDef   []byte // the c column's definition payload
}

// maxCannedBytes bounds one pre-encoded result set.
const maxCannedBytes = 64 << 20

// canned is a pre-framed response and the number of packets it holds.
type canned struct {
	frames  []byte
	packets int
}

// NewServer checks cfg, fills in its defaults and pre-encodes the
// responses. For caching_sha2_password it generates the RSA key pair that
// full authentication over TCP uses.
func NewServer(cfg ServerConfig) (*Server, error) {
	switch cfg.Auth {
	case "":
		cfg.Auth = pluginNative
	case pluginNative, pluginCachingSHA2:
	default:
		return nil, fmt.Errorf("mysql: server auth %q: want %s or %s", cfg.Auth, pluginNative, pluginCachingSHA2)
	}
	if cfg.Rows < 0 || cfg.RowBytes < 0 {
		return nil, fmt.Errorf("mysql: server: negative rows %d or row bytes %d", cfg.Rows, cfg.RowBytes)
	}
	if cfg.Rows == 0 {
		cfg.Rows = 1
	}
	if cfg.RowBytes == 0 {
		cfg.RowBytes = 120
	}
	// Result sets are pre-encoded whole (text and binary, both EOF
	// shapes), so their size is bounded.
	if size := cfg.Rows * (cfg.RowBytes + 9); cfg.RowBytes > maxCannedBytes || size > maxCannedBytes {
		return nil, fmt.Errorf("mysql: server: %d rows of %d bytes exceed the %d MiB a canned result may hold", cfg.Rows, cfg.RowBytes, maxCannedBytes>>20)
	}
	if cfg.Version == "" {
		cfg.Version = "8.0.36-hoplat"
	}
	s := &Server{cfg: cfg, caps: serverAdvertisedCaps, cached: map[string]bool{}}
	if strings.Contains(cfg.Version, "MariaDB") {
		s.mariaDB = true
		s.caps &^= capLongPassword
	}
	if cfg.Auth == pluginCachingSHA2 {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, fmt.Errorf("mysql: server: generate RSA key: %w", err)
		}
		der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("mysql: server: encode RSA public key: %w", err)
		}
		s.key = key
		s.pubPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	}
	s.encodeCanned()
	return s, nil
}

// sysbench's c values are ten groups of 11 digits joined by '-'; the canned
// row imitates that shape at the configured width.
func rowValue(n int) []byte {
	v := make([]byte, n)
	for i := range v {
		if i%12 == 11 {
			v[i] = '-'
		} else {
			v[i] = '0' + byte((i*7+3)%10)
		}
	}
	return v
}

func (s *Server) encodeCanned() {
	col := columnDef{
		schema: []byte("sbtest"), table: []byte("sbtest1"), orgTable: []byte("sbtest1"),
		name: []byte("c"), orgName: []byte("c"),
		charset: clientCharsetUTF8MB4, length: uint32(s.cfg.RowBytes * 4),
		colType: typeString, flags: flagNotNull,
	}
	s.colDef = appendColumnDef(nil, &col)
	value := rowValue(s.cfg.RowBytes)
	for i, deprecateEOF := range [2]bool{false, true} {
		s.ok[i] = frame(func(pc *packetConn) {
			pc.end(appendOK(pc.begin(), headerOK, 0, serverStatusAutocommit))
		})
		for _, binaryRows := range [2]bool{false, true} {
			c := frame(func(pc *packetConn) {
				pc.end(appendLenEncInt(pc.begin(), 1))
				pc.writePacket(s.colDef)
				if !deprecateEOF {
					pc.end(appendEOF(pc.begin(), serverStatusAutocommit))
				}
				for range s.cfg.Rows {
					b := pc.begin()
					if binaryRows {
						b = append(b, 0, 0) // header, NULL bitmap for one column
					}
					pc.end(appendLenEncBytes(b, value))
				}
				endResultSet(pc, deprecateEOF)
			})
			if binaryRows {
				s.binRows[i] = c
			} else {
				s.textRows[i] = c
			}
		}
	}
}

// frame runs encode on a scratch packetConn whose sequence starts at 1, as
// every command response does, and returns the framed bytes.
func frame(encode func(pc *packetConn)) canned {
	pc := &packetConn{seq: 1, pktStart: -1}
	encode(pc)
	// Sequence ids wrap at 256; only the count modulo 256 matters.
	return canned{frames: pc.wbuf, packets: int(pc.seq - 1)}
}

func endResultSet(pc *packetConn, deprecateEOF bool) {
	if deprecateEOF {
		pc.end(appendOK(pc.begin(), headerEOF, 0, serverStatusAutocommit))
	} else {
		pc.end(appendEOF(pc.begin(), serverStatusAutocommit))
	}
}

// ServeConn serves one connection until COM_QUIT or end of stream; the
// caller owns rw and closes it afterwards. A net.Conn whose local address is
// a UNIX socket counts as a secure transport (caching_sha2_password then
// accepts the password in clear); use ServeUnixConn to say so for another
// kind of stream.
func (s *Server) ServeConn(rw io.ReadWriter) error {
	unix := false
	if c, ok := rw.(interface{ LocalAddr() net.Addr }); ok {
		if a := c.LocalAddr(); a != nil {
			unix = strings.HasPrefix(a.Network(), "unix")
		}
	}
	return s.serve(rw, unix)
}

// ServeUnixConn is ServeConn for a stream known to be a UNIX-domain socket.
func (s *Server) ServeUnixConn(rw io.ReadWriter) error { return s.serve(rw, true) }

func (s *Server) serve(rw io.ReadWriter, unix bool) error {
	c := &serverConn{s: s, pc: newPacketConn(rw), unix: unix, rw: rw}
	if err := c.handshake(); err != nil {
		return err
	}
	return c.commandLoop()
}

package mock

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoplat/hoplat/mysql/sbtable"
	"github.com/hoplat/hoplat/mysql/wire"
)

// ServerConfig shapes the mock mysqld. The zero value serves user "" with
// an empty password, mysql_native_password, and one table, sbtest1, of
// 10000 rows as `sysbench prepare` creates it.
type ServerConfig struct {
	User     string
	Password string
	// Auth is the account's plugin: "mysql_native_password" (default) or
	// "caching_sha2_password".
	Auth string
	// Tables is the number of sysbench tables, sbtest1..sbtestN; 0 means
	// 1, sysbench's --tables default.
	Tables int
	// TableSize is the rows of each table, ids 1..TableSize; 0 means
	// 10000, sysbench's --table-size default. Rows are computed when read,
	// never stored, so any size costs the same memory.
	TableSize int64
	// Seed fixes the tables' contents (k, c and pad of every row): two
	// servers with the same seed answer alike.
	Seed uint64
	// Rows and RowBytes, when either is set, reshape the answer to the
	// point select (SELECT c FROM sbtestN WHERE id=v): Rows rows (0 means
	// 1) of a RowBytes-wide c (0 means 120), to measure what the size of a
	// result costs. Such an answer is no longer what mysqld would give;
	// every other statement is still answered from the tables.
	Rows     int
	RowBytes int
	// Service, when set, runs once per statement (COM_QUERY,
	// COM_STMT_EXECUTE) before the reply is written, to model the query's
	// own cost.
	Service func()
	// Version is the greeting's server version; "" means "8.0.36-hoplat".
	// A version containing "MariaDB" makes the greeting MariaDB-flavoured
	// (capability bit 0 clear, extended capabilities 0).
	Version string
	// ConnectTimeout bounds the connection phase, from accept to the
	// login's OK, as mysqld's connect_timeout does; 0 means mysqld's
	// default of 10 s, a negative value no bound. A client still silent
	// then is disconnected without a word, as mysqld does (the client
	// sees "Lost connection ... at 'reading authorization packet'").
	ConnectTimeout time.Duration
	// MaxAllowedPacket caps one command after login, as mysqld's
	// max_allowed_packet does (ER_NET_PACKET_TOO_LARGE, then the
	// connection closes); 0 means 64 MiB, MySQL 8.0's default. mysqld
	// accepts 1 KiB to 1 GiB.
	MaxAllowedPacket int
}

// Defaults and bounds of ServerConfig's limits.
const (
	DefaultConnectTimeout   = 10 * time.Second
	DefaultMaxAllowedPacket = 64 << 20
	MinMaxAllowedPacket     = 1 << 10
	MaxMaxAllowedPacket     = 1 << 30
)

// handshakeLimit caps every packet a client sends before it is logged in.
// The largest HandshakeResponse41 a real client sends is well under it:
// 32 fixed bytes, a user name of at most 128 characters (MariaDB's
// USERNAME_CHAR_LENGTH) in up to 4 bytes each (512), an auth response of
// at most 256 bytes (an RSA-2048 encrypted password; the native and
// caching_sha2 tokens are 20 and 32), a schema of 64 characters (256), a
// plugin name (64), and connection attributes, which libmariadb, the Go
// driver and PyMySQL keep to a few hundred bytes (MySQL's
// performance_schema keeps 512 of them by default). 8 KiB leaves several
// times that room, and a hostile length prefix costs nothing: the 4 KiB
// read buffer a connection starts with grows, to 8 KiB at most before
// login, only as bytes arrive.
const handshakeLimit = 8 << 10

// Initial buffer sizes of a served connection: enough for the connection
// phase and the commands of a benchmark; they grow as larger packets
// arrive.
const (
	serverReadBuf  = 4 << 10
	serverWriteBuf = 1 << 10
)

// String describes the config with the password redacted.
func (c ServerConfig) String() string {
	return fmt.Sprintf("{User:%q Password:%s Auth:%q Tables:%d TableSize:%d Seed:%d Rows:%d RowBytes:%d Service:%v Version:%q ConnectTimeout:%v MaxAllowedPacket:%d}",
		c.User, redact(c.Password), c.Auth, c.Tables, c.TableSize, c.Seed, c.Rows, c.RowBytes, c.Service != nil, c.Version, c.ConnectTimeout, c.MaxAllowedPacket)
}

// GoString is String for %#v.
func (c ServerConfig) GoString() string { return "mysql.ServerConfig" + c.String() }

// Config returns the configuration with defaults filled in.
func (s *Server) Config() ServerConfig { return s.cfg }

// Server answers the MySQL protocol as a mysqld holding sysbench's tables. One Server serves
// any number of connections concurrently; it holds what they share: the
// pre-encoded responses, the RSA key and the caching_sha2_password cache.
type Server struct {
	cfg     ServerConfig
	mariaDB bool
	caps    uint32 // capabilities the greeting offers
	connIDs atomic.Uint32
	started time.Time

	hostname string

	// Constant results of SELECTs without a table, by SQL text.
	exprMu sync.RWMutex
	exprs  map[string]*exprResult

	// Counters for SHOW STATUS and COM_STATISTICS.
	threads   atomic.Int64 // connections being served
	questions atomic.Uint64

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
	// canned: Rows or RowBytes reshape the point select.
	canned bool

	tables     []sbtable.Table
	tableNames []string
	// autoInc holds each table's next AUTO_INCREMENT id.
	autoInc []atomic.Int64
}

// maxTables bounds ServerConfig.Tables (sysbench itself takes any number;
// a thousand is far more than any run of it uses).
const maxTables = 1000

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
		cfg.Auth = wire.PluginNative
	case wire.PluginNative, wire.PluginCachingSHA2:
	default:
		return nil, fmt.Errorf("mysql: server auth %q: want %s or %s", cfg.Auth, wire.PluginNative, wire.PluginCachingSHA2)
	}
	if cfg.Rows < 0 || cfg.RowBytes < 0 {
		return nil, fmt.Errorf("mysql: server: negative rows %d or row bytes %d", cfg.Rows, cfg.RowBytes)
	}
	canned := cfg.Rows > 0 || cfg.RowBytes > 0
	rows, rowBytes := max(cfg.Rows, 1), cfg.RowBytes
	if rowBytes == 0 {
		rowBytes = 120
	}
	// Result sets are pre-encoded whole (text and binary, both EOF
	// shapes), so their size is bounded.
	if size := rows * (rowBytes + 9); rowBytes > maxCannedBytes || size > maxCannedBytes {
		return nil, fmt.Errorf("mysql: server: %d rows of %d bytes exceed the %d MiB a canned result may hold", rows, rowBytes, maxCannedBytes>>20)
	}
	if cfg.Tables == 0 {
		cfg.Tables = 1
	}
	if cfg.TableSize == 0 {
		cfg.TableSize = 10000
	}
	if cfg.Tables < 0 || cfg.Tables > maxTables || cfg.TableSize < 0 || cfg.TableSize > math.MaxInt32 {
		return nil, fmt.Errorf("mysql: server: %d tables of %d rows: want 1 to %d tables of 1 to %d rows (an INT id)", cfg.Tables, cfg.TableSize, maxTables, math.MaxInt32)
	}
	if cfg.Version == "" {
		cfg.Version = "8.0.36-hoplat"
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.MaxAllowedPacket == 0 {
		cfg.MaxAllowedPacket = DefaultMaxAllowedPacket
	}
	if cfg.MaxAllowedPacket < MinMaxAllowedPacket || cfg.MaxAllowedPacket > MaxMaxAllowedPacket {
		return nil, fmt.Errorf("mysql: server: max_allowed_packet %d: want %d to %d, as mysqld", cfg.MaxAllowedPacket, MinMaxAllowedPacket, MaxMaxAllowedPacket)
	}
	s := &Server{cfg: cfg, caps: wire.ServerAdvertisedCaps, cached: map[string]bool{}, started: time.Now(), exprs: map[string]*exprResult{}}
	s.hostname, _ = os.Hostname()
	if strings.Contains(cfg.Version, "MariaDB") {
		s.mariaDB = true
		s.caps &^= wire.CapLongPassword
	}
	if cfg.Auth == wire.PluginCachingSHA2 {
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
	s.canned = canned
	s.encodeCanned(rows, rowBytes)
	s.autoInc = make([]atomic.Int64, cfg.Tables)
	for n := 1; n <= cfg.Tables; n++ {
		s.tables = append(s.tables, sbtable.Table{N: n, Size: cfg.TableSize, Seed: cfg.Seed})
		s.tableNames = append(s.tableNames, "sbtest"+strconv.Itoa(n))
		s.autoInc[n-1].Store(cfg.TableSize + 1)
	}
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

func (s *Server) encodeCanned(rows, rowBytes int) {
	col := wire.ColumnDef{
		Schema: []byte("sbtest"), Table: []byte("sbtest1"), OrgTable: []byte("sbtest1"),
		Name: []byte("c"), OrgName: []byte("c"),
		Charset: wire.ClientCharsetUTF8MB4, Length: uint32(rowBytes * 4),
		ColType: wire.TypeString, Flags: wire.FlagNotNull,
	}
	s.colDef = wire.AppendColumnDef(nil, &col)
	value := rowValue(rowBytes)
	for i, deprecateEOF := range [2]bool{false, true} {
		s.ok[i] = frame(func(pc *wire.PacketConn) {
			pc.End(wire.AppendOK(pc.Begin(), wire.HeaderOK, 0, wire.ServerStatusAutocommit))
		})
		for _, binaryRows := range [2]bool{false, true} {
			c := frame(func(pc *wire.PacketConn) {
				pc.End(wire.AppendLenEncInt(pc.Begin(), 1))
				pc.WritePacket(s.colDef)
				if !deprecateEOF {
					pc.End(wire.AppendEOF(pc.Begin(), wire.ServerStatusAutocommit))
				}
				for range rows {
					b := pc.Begin()
					if binaryRows {
						b = append(b, 0, 0) // header, NULL bitmap for one column
					}
					pc.End(wire.AppendLenEncBytes(b, value))
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
func frame(encode func(pc *wire.PacketConn)) canned {
	pc := &wire.PacketConn{Seq: 1, PktStart: -1}
	encode(pc)
	// Sequence ids wrap at 256; only the count modulo 256 matters.
	return canned{frames: pc.Wbuf, packets: int(pc.Seq - 1)}
}

func endResultSet(pc *wire.PacketConn, deprecateEOF bool) {
	if deprecateEOF {
		pc.End(wire.AppendOK(pc.Begin(), wire.HeaderEOF, 0, wire.ServerStatusAutocommit))
	} else {
		pc.End(wire.AppendEOF(pc.Begin(), wire.ServerStatusAutocommit))
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
	return s.newServerConn(rw, unix).run()
}

func (s *Server) newServerConn(rw io.ReadWriter, unix bool) *serverConn {
	return &serverConn{s: s, pc: wire.NewPacketConnSize(rw, serverReadBuf, serverWriteBuf), unix: unix, rw: rw}
}

// run serves the connection: the connection phase under handshakeLimit
// and connect_timeout, then commands under max_allowed_packet.
func (c *serverConn) run() error {
	s := c.s
	c.pc.MaxMessage = handshakeLimit
	s.threads.Add(1)
	defer s.threads.Add(-1)
	defer c.flushQuestions()
	if err := c.handshakeWithin(s.cfg.ConnectTimeout); err != nil || !c.authed {
		return err
	}
	c.pc.MaxMessage = s.cfg.MaxAllowedPacket
	return c.commandLoop()
}

// ErrConnectTimeout reports a client that did not complete the connection
// phase within ServerConfig.ConnectTimeout.
var ErrConnectTimeout = errors.New("mysql: serve: connect_timeout expired before login")

// handshakeWithin runs the connection phase under a deadline: on a net.Conn
// its own read/write deadline, on anything else (a raw fd) an Interrupt
// from a timer.
func (c *serverConn) handshakeWithin(timeout time.Duration) error {
	if timeout < 0 {
		return c.handshake()
	}
	expired := func(err error) error {
		if err != nil {
			return fmt.Errorf("%w (%v): %w", ErrConnectTimeout, timeout, err)
		}
		return fmt.Errorf("%w (%v)", ErrConnectTimeout, timeout)
	}
	if d, ok := c.rw.(interface{ SetDeadline(time.Time) error }); ok {
		start := time.Now()
		if err := d.SetDeadline(start.Add(timeout)); err != nil {
			return fmt.Errorf("mysql: serve: set connect deadline: %w", err)
		}
		err := c.handshake()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return expired(err)
		}
		if err != nil {
			return err
		}
		if err := d.SetDeadline(time.Time{}); err != nil {
			return fmt.Errorf("mysql: serve: clear connect deadline: %w", err)
		}
		return nil
	}
	i, ok := c.rw.(interface{ Interrupt() })
	if !ok {
		return c.handshake()
	}
	var fired atomic.Bool
	t := time.AfterFunc(timeout, func() {
		fired.Store(true)
		i.Interrupt()
	})
	err := c.handshake()
	if !t.Stop() || fired.Load() {
		// The interrupt may have landed after the handshake's last read:
		// the connection is unusable either way.
		return expired(err)
	}
	return err
}

func redact(password string) string {
	if password == "" {
		return `""`
	}
	return "<redacted>"
}

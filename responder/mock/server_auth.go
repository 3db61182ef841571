package mock

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/hoplat/hoplat/mysql/wire"
)

// serverConn is one connection's state on the mock server.
type serverConn struct {
	s            *Server
	pc           *wire.PacketConn
	rw           io.ReadWriter
	unix         bool
	caps         uint32
	deprecateEOF bool
	authed       bool // the connection phase ended with OK
	connID       uint32
	nonce        [20]byte // the greeting's, which COM_CHANGE_USER's token uses too
	user         string
	db           string
	stmts        map[uint32]*serverStmt
	nextStmt     uint32
	questions    uint64 // statements not yet added to the Server's count

	// Statements on tables: the text statement being run (its slices
	// reused), the parameters of the execution, scratch space.
	tq           tableStmt
	params       []param
	outCols      []outCol
	ids          []int64   // an IN list's ids
	sortRows     []sortRow // the rows an ORDER BY or DISTINCT sorts
	sortKeys     []sortKey
	accs         []aggAcc
	scratch      []byte
	lastInsertID uint64
	foundRows    bool // CLIENT_FOUND_ROWS: UPDATE counts matched rows
}

// flushQuestions adds this connection's statements to the Server's count.
func (c *serverConn) flushQuestions() {
	c.s.questions.Add(c.questions)
	c.questions = 0
}

// newNonce returns 20 random bytes in 0x21..0x7E: never NUL (the greeting
// NUL-terminates the nonce) and printable, as MySQL and ProxySQL send.
func newNonce() ([20]byte, error) {
	var n [20]byte
	if _, err := rand.Read(n[:]); err != nil {
		return n, err
	}
	for i := range n {
		n[i] = 0x21 + n[i]%(0x7F-0x21)
	}
	return n, nil
}

// peerHost names the client in Access denied messages, as mysqld does.
func (c *serverConn) peerHost() string {
	if c.unix {
		return "localhost"
	}
	if nc, ok := c.rw.(interface{ RemoteAddr() net.Addr }); ok {
		if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
			return a.IP.String()
		}
	}
	return "localhost"
}

// sendErr writes an ERR packet with the next sequence id.
func (c *serverConn) sendErr(code uint16, state, msg string) error {
	c.pc.End(wire.AppendErr(c.pc.Begin(), code, state, msg))
	return c.pc.Flush()
}

func (c *serverConn) handshake() error {
	s := c.s
	nonce, err := newNonce()
	if err != nil {
		return fmt.Errorf("mysql: serve: nonce: %w", err)
	}
	c.nonce = nonce
	c.connID = s.connIDs.Add(1)
	g := wire.Greeting{
		Version: []byte(s.cfg.Version),
		ConnID:  c.connID,
		Nonce:   nonce,
		Caps:    s.caps,
		Charset: wire.ClientCharsetUTF8MB4,
		Status:  wire.ServerStatusAutocommit,
		Plugin:  []byte(s.cfg.Auth),
	}
	c.pc.End(wire.AppendGreeting(c.pc.Begin(), &g))
	if err := c.pc.Flush(); err != nil {
		return fmt.Errorf("mysql: serve: write greeting: %w", err)
	}
	p, err := c.pc.ReadPacket()
	if err != nil {
		if errors.Is(err, io.EOF) {
			// Health checks (HAProxy, port probes) hang up after the
			// greeting: not an error.
			return nil
		}
		if errors.Is(err, wire.ErrPacketTooLarge) {
			// Nothing this long is a handshake response; mysqld answers
			// a response it cannot use with ER_HANDSHAKE_ERROR.
			c.sendErr(wire.ErHandshake, "08S01", "Bad handshake")
		}
		return fmt.Errorf("mysql: serve: read handshake response: %w", err)
	}
	resp, err := wire.ParseHandshakeResponse(p)
	if err != nil {
		c.sendErr(wire.ErHandshake, "08S01", "Bad handshake")
		return fmt.Errorf("mysql: serve: %w", err)
	}
	c.caps = resp.Caps & g.Caps
	// mysqld honours CLIENT_FOUND_ROWS whether or not its greeting
	// offered it.
	c.foundRows = resp.Caps&capFoundRows != 0
	c.deprecateEOF = c.caps&wire.CapDeprecateEOF != 0
	c.db = string(resp.Db)
	plugin := string(resp.Plugin)
	if c.caps&wire.CapPluginAuth == 0 {
		plugin = wire.PluginNative
	}
	if err := c.authenticate(string(resp.User), plugin, resp.Auth); err != nil {
		return err
	}
	c.authed = true
	return nil
}

// authenticate checks user's auth response, switching the client to the
// account's plugin first if it answered for another, and ends the exchange
// with OK, or with ERR 1045 and an error. The login and COM_CHANGE_USER
// share it; both use the greeting's nonce, as MariaDB does (captured).
func (c *serverConn) authenticate(user, plugin string, auth []byte) error {
	s := c.s
	nonce := c.nonce
	if plugin != s.cfg.Auth {
		c.pc.End(wire.AppendAuthSwitch(c.pc.Begin(), s.cfg.Auth, nonce[:]))
		if err := c.pc.Flush(); err != nil {
			return fmt.Errorf("mysql: serve: write auth switch: %w", err)
		}
		var err error
		if auth, err = c.pc.ReadPacket(); err != nil {
			return fmt.Errorf("mysql: serve: read auth switch response: %w", err)
		}
	}
	var ok bool
	if s.cfg.Auth == wire.PluginCachingSHA2 {
		var err error
		ok, err = c.authCachingSHA2(user, nonce[:], auth)
		if err != nil {
			return err
		}
	} else {
		ok = user == s.cfg.User && wire.CheckToken(wire.PluginNative, nonce[:], s.cfg.Password, auth)
	}
	if !ok {
		c.denied(user, len(auth) > 0)
		return fmt.Errorf("mysql: serve: access denied for user %q", user)
	}
	c.user = user
	c.pc.End(wire.AppendOK(c.pc.Begin(), wire.HeaderOK, 0, wire.ServerStatusAutocommit))
	if err := c.pc.Flush(); err != nil {
		return fmt.Errorf("mysql: serve: write auth OK: %w", err)
	}
	return nil
}

func (c *serverConn) denied(user string, withPassword bool) {
	using := "NO"
	if withPassword {
		using = "YES"
	}
	c.sendErr(wire.ErAccessDenied, "28000", fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", user, c.peerHost(), using))
}

// authCachingSHA2 runs the server side of caching_sha2_password (MySQL
// Source Code Documentation, "caching_sha2_password information"): the fast
// path when this Server already saw the user complete full
// authentication, else full authentication with the password in clear over
// a UNIX socket or RSA-encrypted over TCP.
func (c *serverConn) authCachingSHA2(user string, nonce, token []byte) (bool, error) {
	s := c.s
	if user != s.cfg.User {
		return false, nil
	}
	if s.cfg.Password == "" {
		return len(token) == 0, nil
	}
	s.cacheMu.Lock()
	cached := s.cached[user]
	s.cacheMu.Unlock()
	if cached {
		if !wire.CheckToken(wire.PluginCachingSHA2, nonce, s.cfg.Password, token) {
			return false, nil
		}
		c.pc.WritePacket([]byte{wire.HeaderAuthMore, 3})
		return true, c.pc.Flush()
	}
	c.pc.WritePacket([]byte{wire.HeaderAuthMore, 4})
	if err := c.pc.Flush(); err != nil {
		return false, fmt.Errorf("mysql: serve: request full authentication: %w", err)
	}
	p, err := c.pc.ReadPacket()
	if err != nil {
		return false, fmt.Errorf("mysql: serve: read full authentication: %w", err)
	}
	var password []byte
	switch {
	case c.unix:
		password = bytes.TrimSuffix(p, []byte{0})
	case len(p) == 1 && p[0] == 2:
		c.pc.WritePacket(append([]byte{wire.HeaderAuthMore}, s.pubPEM...))
		if err := c.pc.Flush(); err != nil {
			return false, fmt.Errorf("mysql: serve: send public key: %w", err)
		}
		if p, err = c.pc.ReadPacket(); err != nil {
			return false, fmt.Errorf("mysql: serve: read encrypted password: %w", err)
		}
		pw, err := wire.DecryptPassword(s.key, p, nonce)
		if err != nil {
			return false, nil
		}
		password = []byte(pw)
	default:
		// A clear password over TCP is refused, as MySQL does without TLS.
		return false, nil
	}
	if subtle.ConstantTimeCompare(password, []byte(s.cfg.Password)) != 1 {
		return false, nil
	}
	s.cacheMu.Lock()
	s.cached[user] = true
	s.cacheMu.Unlock()
	return true, nil
}

// changeUserRequest is COM_CHANGE_USER's payload after the command byte
// (MySQL Source Code Documentation, COM_CHANGE_USER): unlike the
// handshake response, the auth response has a one-byte length whenever
// SECURE_CONNECTION is on, and the fields after the schema are optional.
type changeUserRequest struct {
	user, auth, db, plugin []byte
}

func parseChangeUser(b []byte, caps uint32) (changeUserRequest, error) {
	var r changeUserRequest
	d := wire.Decoder{B: b, What: "COM_CHANGE_USER"}
	r.user = d.NulBytes("user name", false)
	if caps&wire.CapSecureConnection != 0 {
		r.auth = d.Bytes(int(d.U8("auth response length")), "auth response")
	} else {
		r.auth = d.NulBytes("auth response", false)
	}
	r.db = d.NulBytes("schema", true)
	if d.Err == nil && d.Remaining() > 0 {
		d.U16("character set")
		if caps&wire.CapPluginAuth != 0 && d.Remaining() > 0 {
			r.plugin = d.NulBytes("auth plugin name", true)
		}
		if caps&wire.CapConnectAttrs != 0 && d.Remaining() > 0 {
			if err := d.ConnectAttrs(); err != nil {
				return r, err
			}
		}
	}
	return r, d.Err
}

// changeUser answers COM_CHANGE_USER as mysqld does: the new account
// authenticates in full (with an auth switch when the client answered for
// another plugin), then the session starts afresh: the new schema, no
// prepared statements. A refused login ends the connection after ERR 1045.
func (c *serverConn) changeUser(b []byte) error {
	r, err := parseChangeUser(b, c.caps)
	if err != nil {
		c.sendErr(wire.ErUnknownCommand, "08S01", "Unknown command")
		return fmt.Errorf("mysql: serve: %w", err)
	}
	plugin := string(r.plugin)
	if c.caps&wire.CapPluginAuth == 0 || plugin == "" {
		plugin = wire.PluginNative
	}
	db := string(r.db)
	c.authed = false
	if err := c.authenticate(string(r.user), plugin, r.auth); err != nil {
		return err
	}
	c.authed = true
	c.db = db
	clear(c.stmts)
	return nil
}

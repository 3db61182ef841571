package mysql

import (
	"errors"
	"fmt"
	"io"

	"github.com/hoplat/hoplat/mysql/wire"
)

// ClientConfig names the account and schema a Client logs in with. The
// password is used for the handshake only and never appears in an error.
type ClientConfig struct {
	User     string
	Password string
	DB       string // schema to select at connect; empty selects none

	// MaxMessage caps one reassembled server message; 0 means 64 MiB.
	MaxMessage int
}

// String describes the config with the password redacted, so that logging
// a config never leaks it.
func (c ClientConfig) String() string {
	return fmt.Sprintf("{User:%q Password:%s DB:%q MaxMessage:%d}", c.User, redact(c.Password), c.DB, c.MaxMessage)
}

// GoString is String for %#v.
func (c ClientConfig) GoString() string { return "mysql.ClientConfig" + c.String() }

func redact(password string) string {
	if password == "" {
		return `""`
	}
	return "<redacted>"
}

// Client is one authenticated connection. It is not safe for concurrent use:
// a ping-pong worker owns one Client.
type Client struct {
	pc           *wire.PacketConn
	caps         uint32
	deprecateEOF bool
	mariaDB      bool
	version      string
	connID       uint32        // the greeting's; the server's CONNECTION_ID()
	nonce        [20]byte      // the greeting's, for COM_CHANGE_USER's token
	colTypes     []byte        // scratch: column types of the result being read
	lastOK       wire.OkPacket // the last command's OK, for AffectedRows
}

// AffectedRows returns the affected rows and the last insert id of the
// last statement answered by OK: what mysql_affected_rows() and
// mysql_insert_id() report.
func (c *Client) AffectedRows() (affected, insertID uint64) {
	return c.lastOK.AffectedRows, c.lastOK.LastInsertID
}

// ServerVersion is the version string from the greeting (MariaDB prefixes
// "5.5.5-").
func (c *Client) ServerVersion() string { return c.version }

// ConnectionID is the id the greeting gave the connection, which the
// server's CONNECTION_ID() returns.
func (c *Client) ConnectionID() uint32 { return c.connID }

// ChangeUser sends COM_CHANGE_USER as libmariadb builds it (user, token
// for plugin, schema, collation, plugin) and runs the authentication
// exchange that follows, as a pool does to hand a connection to another
// account. unixSocket says the stream is a UNIX-domain socket.
func (c *Client) ChangeUser(user, password, db, plugin string, unixSocket bool) error {
	nonce := c.nonce
	token, err := wire.AuthToken(nil, plugin, nonce[:], password)
	if err != nil {
		return err
	}
	c.pc.ResetSeq()
	b := append(c.pc.Begin(), wire.ComChangeUser)
	b = append(append(b, user...), 0)
	b = append(append(b, byte(len(token))), token...)
	b = append(append(b, db...), 0)
	b = append(b, wire.ClientCharsetUTF8MB4, 0)
	b = append(append(b, plugin...), 0)
	c.pc.End(b)
	if err := c.pc.Flush(); err != nil {
		return err
	}
	return c.authenticate(password, plugin, nonce[:], unixSocket)
}

// Conn is the packet stream under the client, for a caller that speaks a
// command the Client has no method for (a test, a probe); it must leave the
// stream between exchanges, as each method does.
func (c *Client) Conn() *wire.PacketConn { return c.pc }

// DeprecateEOF reports whether the login negotiated CLIENT_DEPRECATE_EOF,
// which decides how a result set's column block and rows end.
func (c *Client) DeprecateEOF() bool { return c.deprecateEOF }

// MariaDB reports whether the server announced MariaDB's extended
// capabilities (greeting bit 0 clear); proxies may rewrite the version
// string, so the bit is the reliable signal.
func (c *Client) MariaDB() bool { return c.mariaDB }

// Connect performs the handshake over an already-connected stream. The
// caller owns rw (a net.Conn or a raw-fd wrapper) and closes it. unixSocket
// says whether rw is a UNIX-domain socket, where caching_sha2_password may
// send the password in clear as MySQL's own client does; over TCP it uses the
// server's RSA public key instead.
func Connect(rw io.ReadWriter, cfg ClientConfig, unixSocket bool) (*Client, error) {
	c := &Client{pc: wire.NewPacketConn(rw)}
	if cfg.MaxMessage > 0 {
		c.pc.MaxMessage = cfg.MaxMessage
	}
	if err := c.handshake(&cfg, unixSocket, ""); err != nil {
		return nil, fmt.Errorf("mysql: connect as %q: %w", cfg.User, err)
	}
	return c, nil
}

// handshake logs in. offer names the plugin of the first auth response; ""
// takes the greeting's (tests use it to provoke an AuthSwitchRequest).
func (c *Client) handshake(cfg *ClientConfig, unixSocket bool, offer string) error {
	p, err := c.pc.ReadPacket()
	if err != nil {
		return fmt.Errorf("read greeting: %w", err)
	}
	if len(p) > 0 && p[0] == wire.HeaderErr {
		return wire.ParseErr(p)
	}
	g, err := wire.ParseGreeting(p)
	if err != nil {
		return err
	}
	c.version = string(g.Version)
	c.connID = g.ConnID
	c.mariaDB = g.MariaDB
	if g.Caps&wire.CapProtocol41 == 0 {
		return fmt.Errorf("server lacks CLIENT_PROTOCOL_41 (capabilities 0x%08x)", g.Caps)
	}
	want := uint32(wire.ClientWantedCaps)
	if cfg.DB != "" {
		want |= wire.CapConnectWithDB
	}
	c.caps = want & g.Caps
	c.deprecateEOF = c.caps&wire.CapDeprecateEOF != 0

	plugin := string(g.Plugin)
	if offer != "" {
		plugin = offer
	} else if plugin != wire.PluginCachingSHA2 {
		// Anything else starts with native; the server switches us if the
		// account needs another plugin.
		plugin = wire.PluginNative
	}
	nonce := g.Nonce
	c.nonce = nonce
	auth, _ := wire.AuthToken(nil, plugin, nonce[:], cfg.Password)
	resp := wire.HandshakeResponse{
		Caps:      c.caps,
		MaxPacket: wire.MaxPayload + 1,
		Charset:   wire.ClientCharsetUTF8MB4,
		User:      []byte(cfg.User),
		Auth:      auth,
		Db:        []byte(cfg.DB),
		Plugin:    []byte(plugin),
	}
	b := c.pc.Begin()
	c.pc.End(wire.AppendHandshakeResponse(b, &resp))
	if err := c.pc.Flush(); err != nil {
		return fmt.Errorf("write handshake response: %w", err)
	}
	return c.authenticate(cfg.Password, plugin, nonce[:], unixSocket)
}

// authenticate reads the server's answers to the handshake response until
// OK or ERR, answering one AuthSwitchRequest and caching_sha2_password's
// AuthMoreData exchanges.
func (c *Client) authenticate(password, plugin string, nonce []byte, unixSocket bool) error {
	switched := false
	for {
		p, err := c.pc.ReadPacket()
		if err != nil {
			return fmt.Errorf("read auth result: %w", err)
		}
		if len(p) == 0 {
			return errors.New("read auth result: empty packet")
		}
		switch p[0] {
		case wire.HeaderOK:
			_, err := wire.ParseOK(p)
			return err
		case wire.HeaderErr:
			err := wire.ParseErr(p)
			var se *wire.ServerError
			if errors.As(err, &se) && se.Code == wire.ErSecureTransportNeeded {
				return fmt.Errorf("server requires TLS, which this client does not implement: %w", err)
			}
			return err
		case wire.HeaderEOF:
			if switched {
				return errors.New("server sent a second auth switch")
			}
			switched = true
			sw, err := wire.ParseAuthSwitch(p)
			if err != nil {
				return err
			}
			plugin = string(sw.Plugin)
			if plugin == wire.PluginClear {
				return errors.New("server asks for mysql_clear_password, which would send the password unencrypted: refused")
			}
			if len(sw.Data) < 20 {
				return fmt.Errorf("auth switch to %s: nonce is %d bytes, want 20", plugin, len(sw.Data))
			}
			nonce = append([]byte(nil), sw.Data[:20]...)
			auth, err := wire.AuthToken(nil, plugin, nonce, password)
			if err != nil {
				return err
			}
			c.pc.WritePacket(auth)
			if err := c.pc.Flush(); err != nil {
				return fmt.Errorf("write auth switch response: %w", err)
			}
		case wire.HeaderAuthMore:
			if plugin != wire.PluginCachingSHA2 || len(p) < 2 {
				return fmt.Errorf("unexpected AuthMoreData (% x) for plugin %s", p[:min(len(p), 8)], plugin)
			}
			switch p[1] {
			case 3: // fast authentication succeeded; OK follows
			case 4:
				if err := c.fullAuth(password, nonce, unixSocket); err != nil {
					return err
				}
			default:
				return fmt.Errorf("caching_sha2_password: unexpected AuthMoreData status 0x%02x", p[1])
			}
		default:
			return fmt.Errorf("unexpected packet 0x%02x during authentication", p[0])
		}
	}
}

// fullAuth sends the password for caching_sha2_password's full
// authentication: in clear over a UNIX socket (a secure transport, as for
// MySQL's client), else RSA-encrypted with the key the server hands out on
// request (byte 0x02).
func (c *Client) fullAuth(password string, nonce []byte, unixSocket bool) error {
	if unixSocket {
		b := c.pc.Begin()
		b = append(b, password...)
		c.pc.End(append(b, 0))
		return c.pc.Flush()
	}
	c.pc.WritePacket([]byte{2})
	if err := c.pc.Flush(); err != nil {
		return fmt.Errorf("request server public key: %w", err)
	}
	p, err := c.pc.ReadPacket()
	if err != nil {
		return fmt.Errorf("read server public key: %w", err)
	}
	if len(p) > 0 && p[0] == wire.HeaderErr {
		return wire.ParseErr(p)
	}
	if len(p) < 2 || p[0] != wire.HeaderAuthMore {
		return fmt.Errorf("caching_sha2_password: public key reply % x, want 0x01 and a PEM key", p[:min(len(p), 8)])
	}
	ct, err := wire.EncryptPassword(p[1:], password, nonce)
	if err != nil {
		return err
	}
	c.pc.WritePacket(ct)
	return c.pc.Flush()
}

// Ping sends COM_PING and waits for its OK.
func (c *Client) Ping() error {
	c.pc.ResetSeq()
	c.pc.End(append(c.pc.Begin(), wire.ComPing))
	if err := c.pc.Flush(); err != nil {
		return fmt.Errorf("mysql: ping: %w", err)
	}
	_, err := c.readResult(false)
	if err != nil {
		return fmt.Errorf("mysql: ping: %w", err)
	}
	return nil
}

// Query runs sql with COM_QUERY and reads the whole response, returning the
// number of rows in its result set(s) (0 for a statement answered by OK).
// Rows are checked for framing and discarded without allocating.
func (c *Client) Query(sql string) (rows int, err error) {
	c.pc.ResetSeq()
	b := append(c.pc.Begin(), wire.ComQuery)
	c.pc.End(append(b, sql...))
	return c.roundTrip(false)
}

// QueryBytes is Query for SQL text the caller builds in a reused buffer.
func (c *Client) QueryBytes(sql []byte) (rows int, err error) {
	c.pc.ResetSeq()
	b := append(c.pc.Begin(), wire.ComQuery)
	c.pc.End(append(b, sql...))
	return c.roundTrip(false)
}

func (c *Client) roundTrip(binaryRows bool) (int, error) {
	if err := c.pc.Flush(); err != nil {
		return 0, fmt.Errorf("mysql: write command: %w", err)
	}
	return c.readResult(binaryRows)
}

// readResult reads one command's response: OK, ERR, or result set(s).
func (c *Client) readResult(binaryRows bool) (int, error) {
	rows := 0
	for {
		p, err := c.pc.ReadPacket()
		if err != nil {
			return rows, err
		}
		if len(p) == 0 {
			return rows, errors.New("mysql: read result: empty packet")
		}
		var status uint16
		switch p[0] {
		case wire.HeaderOK:
			ok, err := wire.ParseOK(p)
			if err != nil {
				return rows, err
			}
			c.lastOK = ok
			status = ok.Status
		case wire.HeaderErr:
			return rows, wire.ParseErr(p)
		case wire.HeaderLocalInfile:
			return rows, errors.New("mysql: read result: server asks for LOAD DATA LOCAL INFILE, which is not supported")
		default:
			n, st, err := c.readResultSet(p, binaryRows)
			rows += n
			if err != nil {
				return rows, err
			}
			status = st
		}
		if status&wire.ServerMoreResults == 0 {
			return rows, nil
		}
	}
}

// readResultSet reads column definitions and rows after the column-count
// packet p, returning the row count and the terminator's status flags.
func (c *Client) readResultSet(p []byte, binaryRows bool) (rows int, status uint16, err error) {
	d := wire.Decoder{B: p, What: "column count"}
	n, _ := d.LenEncInt("column count")
	if d.Err != nil {
		return 0, 0, d.Err
	}
	if n == 0 || n > 4096 {
		return 0, 0, fmt.Errorf("mysql: decode column count: %d columns", n)
	}
	c.colTypes = c.colTypes[:0]
	for range n {
		p, err := c.pc.ReadPacket()
		if err != nil {
			return 0, 0, err
		}
		col, err := wire.ParseColumnDef(p)
		if err != nil {
			return 0, 0, err
		}
		c.colTypes = append(c.colTypes, col.ColType)
	}
	if !c.deprecateEOF {
		p, err := c.pc.ReadPacket()
		if err != nil {
			return 0, 0, err
		}
		if _, err := wire.ParseEOF(p); err != nil {
			return 0, 0, err
		}
	}
	for {
		p, err := c.pc.ReadPacket()
		if err != nil {
			return rows, 0, err
		}
		switch {
		case wire.IsTerminator(p):
			st, err := wire.TerminatorStatus(p, c.deprecateEOF)
			return rows, st, err
		case len(p) > 0 && p[0] == wire.HeaderErr:
			return rows, 0, wire.ParseErr(p)
		case binaryRows:
			err = wire.CheckBinaryRow(p, c.colTypes)
		default:
			err = wire.CheckTextRow(p, len(c.colTypes))
		}
		if err != nil {
			return rows, 0, err
		}
		rows++
	}
}

// Quit sends COM_QUIT. The server closes without answering; the caller
// closes the stream.
func (c *Client) Quit() error {
	c.pc.ResetSeq()
	c.pc.End(append(c.pc.Begin(), wire.ComQuit))
	if err := c.pc.Flush(); err != nil {
		return fmt.Errorf("mysql: quit: %w", err)
	}
	return nil
}

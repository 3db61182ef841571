package mock

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

func command(t *testing.T, c *mysql.Client, cmd byte) []byte {
	t.Helper()
	c.Conn().ResetSeq()
	c.Conn().WritePacket([]byte{cmd})
	if err := c.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	p, err := c.Conn().ReadPacket()
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), p...)
}

// TestServerSessionCommands covers what pools and proxies send between
// queries: COM_RESET_CONNECTION, COM_CHANGE_USER (a full login again, with
// an auth switch when the client answers for another plugin),
// COM_STATISTICS and COM_SET_OPTION, for both account plugins over TCP and
// UNIX.
func TestServerSessionCommands(t *testing.T) {
	for _, auth := range []string{wire.PluginNative, wire.PluginCachingSHA2} {
		m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "pw", Auth: auth})
		// UNIX first: caching_sha2's full authentication in clear fills the
		// cache that TCP's fast path then uses.
		for _, tr := range [][2]string{{"unix", m.Sock}, {"tcp", m.TCPAddr}} {
			unix := tr[0] == "unix"
			t.Run(auth+"/"+tr[0], func(t *testing.T) {
				c := mysqltest.MustDial(t, mysql.Connect, tr[0], tr[1], mysql.ClientConfig{User: "u", Password: "pw", DB: "sbtest"})
				r, err := queryResult(t, c, "SELECT CONNECTION_ID()")
				if err != nil || r.cell(0, 0) != strconv.Itoa(int(c.ConnectionID())) {
					t.Fatalf("CONNECTION_ID() = %v, %v; the greeting said %d", r, err, c.ConnectionID())
				}
				st, err := c.Prepare("SELECT c FROM sbtest1 WHERE id=?")
				if err != nil {
					t.Fatal(err)
				}
				// Reset: statements go, the schema stays.
				if p := command(t, c, wire.ComResetConnection); p[0] != wire.HeaderOK {
					t.Fatalf("COM_RESET_CONNECTION: % x", p)
				}
				if _, err := st.Exec(1); mysqltest.AsServerError(err) == nil || mysqltest.AsServerError(err).Code != wire.ErUnknownStmtHandler {
					t.Fatalf("statement after reset: %v, want ERR %d", err, wire.ErUnknownStmtHandler)
				}
				if r, _ := queryResult(t, c, "SELECT DATABASE()"); r.cell(0, 0) != "sbtest" {
					t.Fatalf("schema after reset: %q", r.cell(0, 0))
				}
				// Change user, answering for the other plugin: switched.
				other := wire.PluginNative
				if auth == wire.PluginNative {
					other = wire.PluginCachingSHA2
				}
				for _, plugin := range []string{auth, other} {
					if err := c.ChangeUser("u", "pw", "other", plugin, unix); err != nil {
						t.Fatalf("change user offering %s: %v", plugin, err)
					}
					if r, _ := queryResult(t, c, "SELECT DATABASE(), USER()"); r.cell(0, 0) != "other" || !strings.HasPrefix(r.cell(0, 1), "u@") {
						t.Fatalf("after change user: %v", r.rows)
					}
				}
				if p := command(t, c, wire.ComStatistics); !strings.HasPrefix(string(p), "Uptime: ") || !strings.Contains(string(p), "Questions: ") {
					t.Fatalf("COM_STATISTICS: %q", p)
				}
				c.Conn().ResetSeq()
				c.Conn().WritePacket([]byte{wire.ComSetOption, 1, 0})
				c.Conn().Flush()
				if p, err := c.Conn().ReadPacket(); err != nil || !wire.IsTerminator(p) {
					t.Fatalf("COM_SET_OPTION: % x, %v; want EOF", p, err)
				}
				// A wrong password: ERR 1045, then the server closes.
				err = c.ChangeUser("u", "wrong", "", auth, unix)
				if se := mysqltest.AsServerError(err); se == nil || se.Code != wire.ErAccessDenied {
					t.Fatalf("change user with a wrong password: %v, want ERR 1045", err)
				}
				if err := c.Ping(); err == nil {
					t.Fatal("connection still served after a refused change user")
				}
			})
		}
	}
}

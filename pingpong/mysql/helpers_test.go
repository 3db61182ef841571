package mysql

import (
	"net"
	"testing"

	"github.com/hoplat/hoplat/mysql/wire"
)

// mustPrepare builds the workload cfg describes and prepares its
// statements on c, failing t on either error.
func mustPrepare(t testing.TB, c *Client, cfg WorkloadConfig) (*Workload, *Session) {
	t.Helper()
	w, err := NewWorkload(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := w.Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	return w, s
}

// connectOffering is Connect with the first auth response computed for
// plugin, whatever the greeting announced.
func connectOffering(nc net.Conn, cfg ClientConfig, unixSocket bool, plugin string) (*Client, error) {
	c := &Client{pc: wire.NewPacketConn(nc)}
	if err := c.handshake(&cfg, unixSocket, plugin); err != nil {
		return nil, err
	}
	return c, nil
}

package mock

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/wiretest"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// TestReadBufferGrowsWithBytesNotHeader: a header declaring 16 MiB followed
// by one byte costs the reader what arrived, not what was declared.
func TestReadBufferGrowsWithBytesNotHeader(t *testing.T) {
	r := wire.NewPacketConnSize(wiretest.NewPipe([]byte{0xff, 0xff, 0xff, 0, 'x'}), 4<<10, 1<<10)
	if _, err := r.ReadPacket(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
	if len(r.Rbuf) > 4<<10 {
		t.Fatalf("read buffer grew to %d bytes for 5 bytes of input", len(r.Rbuf))
	}
	// Bytes that do arrive grow it as far as they need, in doublings.
	payload := bytes.Repeat([]byte{'y'}, 100<<10)
	w := wire.NewPacketConn(nil)
	w.WritePacket(payload)
	r = wire.NewPacketConnSize(wiretest.NewPipe(w.Wbuf), 4<<10, 1<<10)
	p, err := r.ReadPacket()
	if err != nil || !bytes.Equal(p, payload) {
		t.Fatalf("100 KiB packet: %d bytes, %v", len(p), err)
	}
	if len(r.Rbuf) > 2*(4+len(payload)) {
		t.Fatalf("read buffer %d bytes for a %d-byte packet", len(r.Rbuf), len(payload))
	}
}

// readUntilClosed reads what the server sends until it closes the
// connection, bounded by a generous deadline that only a broken server
// reaches.
func readUntilClosed(t testing.TB, nc net.Conn) []byte {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	b, err := io.ReadAll(nc)
	if err != nil {
		t.Fatalf("server did not close the connection: %v (read % x)", err, b)
	}
	return b
}

// lastErr returns the ERR packet among the packets in b, if any.
func lastErr(b []byte) *wire.ServerError {
	var last *wire.ServerError
	for len(b) >= 4 {
		n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
		if len(b) < 4+n {
			break
		}
		if p := b[4 : 4+n]; n > 0 && p[0] == wire.HeaderErr {
			last = mysqltest.AsServerError(wire.ParseErr(p))
		}
		b = b[4+n:]
	}
	return last
}

// TestPreLoginLimit: before login a packet longer than a handshake
// response can be is refused with ERR 1043 and the connection closed, at
// once, before the payload arrives.
func TestPreLoginLimit(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{})
	for _, n := range []int{0xFFFFFF, handshakeLimit + 1} {
		nc := mysqltest.DialRaw(t, "tcp", m.TCPAddr)
		nc.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16), 1, 'x'})
		if se := lastErr(readUntilClosed(t, nc)); se == nil || se.Code != wire.ErHandshake {
			t.Errorf("declared %d bytes before login: %v, want ERR %d", n, se, wire.ErHandshake)
		}
	}
	// A real client's response, with attributes, is far below the limit.
	c := mysqltest.MustDial(t, mysql.Connect, "unix", m.Sock, mysql.ClientConfig{DB: "sbtest"})
	if err := c.Ping(); err != nil {
		t.Fatal(err)
	}
}

// TestMaxAllowedPacket: after login a command longer than
// max_allowed_packet gets mysqld's ERR 1153 and a close; one that fits is
// served.
func TestMaxAllowedPacket(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{MaxAllowedPacket: 64 << 10})
	c := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{})
	if _, err := c.Query("SELECT 1 /*" + strings.Repeat("x", 60<<10) + "*/"); err != nil {
		t.Fatalf("60 KiB query under a 64 KiB max_allowed_packet: %v", err)
	}
	nc := mysqltest.DialRaw(t, "tcp", m.TCPAddr)
	if _, err := mysql.Connect(nc, mysql.ClientConfig{}, false); err != nil {
		t.Fatal(err)
	}
	n := 64<<10 + 1
	nc.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16), 0, wire.ComQuery})
	b := readUntilClosed(t, nc)
	if se := lastErr(b); se == nil || se.Code != wire.ErNetPacketTooLarge || se.Message != "Got a packet bigger than 'max_allowed_packet' bytes" {
		t.Fatalf("over max_allowed_packet: %v (% x), want ERR 1153", se, b)
	}
}

// TestConnectTimeout: a client that never finishes the connection phase
// is disconnected after connect_timeout, over both kinds of stream the
// server is handed (a net.Conn, and a raw fd through the Interrupt path).
func TestConnectTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	m := mysqltest.StartMock(t, NewServer, ServerConfig{ConnectTimeout: timeout})
	for _, send := range [][]byte{nil, {100, 0, 0, 1, 'x'}} {
		start := time.Now() // before the dial: the server's clock starts at accept
		nc := mysqltest.DialRaw(t, "unix", m.Sock)
		nc.Write(send)
		readUntilClosed(t, nc)
		if d := time.Since(start); d < timeout {
			t.Errorf("sent % x: closed after %v, before connect_timeout %v", send, d, timeout)
		}
	}
	var timedOut bool
	for _, err := range m.Errors() {
		timedOut = timedOut || errors.Is(err, ErrConnectTimeout)
	}
	if !timedOut {
		t.Fatalf("serve errors %v, want ErrConnectTimeout", m.Errors())
	}
	// A client that logs in is not cut off later.
	c := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{})
	deadline := time.Now().Add(2 * timeout)
	for time.Now().Before(deadline) {
		if err := c.Ping(); err != nil {
			t.Fatalf("after login, past connect_timeout: %v", err)
		}
	}
}

// interruptRW is a stream with only Interrupt, as a raw fd is.
type interruptRW struct{ nc net.Conn }

func (i interruptRW) Read(b []byte) (int, error)  { return i.nc.Read(b) }
func (i interruptRW) Write(b []byte) (int, error) { return i.nc.Write(b) }
func (i interruptRW) Interrupt()                  { i.nc.Close() }

func TestConnectTimeoutInterrupt(t *testing.T) {
	s, err := NewServer(ServerConfig{ConnectTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	defer a.Close()
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(interruptRW{b}) }()
	go io.Copy(io.Discard, a)
	if err := <-done; !errors.Is(err, ErrConnectTimeout) {
		t.Fatalf("ServeConn = %v, want ErrConnectTimeout", err)
	}
}

// rssKB reads a process's resident set from /proc (proc(5): VmRSS).
func rssKB(t testing.TB, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmRSS in /proc/PID/status")
	return 0
}

// TestHostileConnectionsRSS runs pongd --proto mysql and opens 1,000
// connections that each send a 5-byte start of a packet and stop, half of
// them declaring 16 MiB (refused at once), half a length within the
// pre-login limit (held until connect_timeout). pongd's RSS must stay under
// 64 MB, and every connection must be closed by the server.
func TestHostileConnectionsRSS(t *testing.T) {
	pongd := peer.Hoplat(t, "pongd")
	const timeout = 3 * time.Second
	cmd := exec.Command(pongd, "--proto", "mysql", "--listen", "tcp:127.0.0.1:0", "--connect-timeout", timeout.String())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Every refused or timed-out connection is logged: shown on failure.
	var logged bytes.Buffer
	cmd.Stderr = &logged
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("pongd's log:\n%s", logged.Bytes())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("pongd: %v", err)
	}
	addr := strings.TrimPrefix(strings.TrimSpace(line), "listening tcp:")
	before := rssKB(t, cmd.Process.Pid)

	const n = 1000
	conns := make([]net.Conn, 0, n)
	dialed := make([]time.Time, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range n {
		// Taken before the dial: the server's clock starts at accept.
		opened := time.Now()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		conns = append(conns, c)
		dialed = append(dialed, opened)
		// Read the greeting first, as the attack does: the server is then
		// in its handshake read.
		var hdr [4]byte
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			t.Fatalf("greeting %d: %v", i, err)
		}
		greeting := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
		if _, err := io.ReadFull(c, greeting); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			c.Write([]byte{0xff, 0xff, 0xff, 1, 0})
		} else {
			c.Write([]byte{0x00, 0x10, 0x00, 1, 0}) // 4 KiB declared, 1 byte sent
		}
	}
	during := rssKB(t, cmd.Process.Pid)
	for i, c := range conns {
		b := readUntilClosed(t, c)
		se := lastErr(b)
		if i%2 == 0 {
			// Refused for its length, not left to time out.
			if se == nil || se.Code != wire.ErHandshake {
				t.Fatalf("connection %d declaring 16 MiB: got % x, want ERR %d", i, b, wire.ErHandshake)
			}
			continue
		}
		// Closed without a word, once connect_timeout expired.
		if se != nil || len(b) != 0 {
			t.Fatalf("connection %d: got % x, want a silent close", i, b)
		}
		if d := time.Since(dialed[i]); d < timeout {
			t.Fatalf("connection %d closed %v after it was opened, before connect_timeout %v", i, d, timeout)
		}
	}
	after := rssKB(t, cmd.Process.Pid)
	t.Logf("pongd RSS: %d kB idle, %d kB with %d hostile connections, %d kB after they closed", before, during, n, after)
	if during > 64<<10 || after > 64<<10 {
		t.Fatalf("pongd RSS %d kB with %d hostile connections, %d kB after; want under 64 MB", during, n, after)
	}
}

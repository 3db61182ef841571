package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/relay"
)

// TestHoprelaySockmap runs --engine sockmap as a user would: TCP→TCP, a
// round trip through the kernel, and stats at exit with the bytes the
// verdict program counted and no residence object (nothing was timed).
func TestHoprelaySockmap(t *testing.T) {
	if err := relay.CheckSockmap(); err != nil {
		peer.Unavailable(t, err.Error())
	}
	bin := peer.Hoplat(t, "hoprelay")
	up := startEcho(t)
	stats := filepath.Join(t.TempDir(), "stats.json")
	cmd, line, err := startRelay(t, bin, "--engine", "sockmap", "--stats", stats,
		"TCP4-LISTEN:0,bind=127.0.0.1,reuseaddr,fork,nodelay", "TCP4:"+up.Addr().String()+",nodelay")
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening tcp4:")
	if err != nil || !ok {
		t.Fatalf("readiness line %q, %v", line, err)
	}
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	echoPing(t, c)
	c.Close()
	stopTerm(t, cmd)
	b, _ := os.ReadFile(stats)
	var s map[string]json.RawMessage
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("stats: %v\n%s", err, b)
	}
	var dirs struct {
		C2U struct{ Bytes int64 } `json:"client_to_upstream"`
		U2C struct{ Bytes int64 } `json:"upstream_to_client"`
	}
	json.Unmarshal(s["directions"], &dirs)
	if _, timed := s["residence"]; timed || dirs.C2U.Bytes != 4 || dirs.U2C.Bytes != 4 {
		t.Errorf("stats at exit: want 4 bytes each way and no residence:\n%s", b)
	}
}

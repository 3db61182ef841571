package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/porttest"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestAttachListen: --listen serves Prometheus text format whose
// residence histogram counts the requests through the proxy (socat).
func TestAttachListen(t *testing.T) {
	peer.Integration(t, "hopbench attach --listen")
	peer.Root(t, "attach: needs root")
	socat := peer.Require(t, "socat")
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	// socat relays one connection (no fork): the test dials it once.
	port := porttest.Closed(t)
	cmd := exec.Command(socat, fmt.Sprintf("TCP-LISTEN:%d,bind=127.0.0.1,reuseaddr", port), "TCP:"+echo.Addr().String())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var c net.Conn
	for deadline := time.Now().Add(5 * time.Second); ; { // socat listens once it has parsed its addresses
		if c, err = net.Dial("tcp", fmt.Sprint("127.0.0.1:", port)); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		ran <- attachRun(ctx, attachOptions{cfg: attachConfig(cmd.Process.Pid), format: "json"}, ln, io.Discard)
	}()
	buf := make([]byte, 64)
	var count uint64
	for requests := 1; count == 0; requests++ {
		if requests > 200000 {
			t.Fatal("no residence counted after 200000 requests")
		}
		if _, err := c.Write(buf); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		if requests%2000 != 0 {
			continue
		}
		count = scrape(t, ln.Addr().String())
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	t.Logf("residence histogram counts %d chunks to_upstream", count)
}

// scrape reads /metrics, parses it as Prometheus text format and returns
// the to_upstream residence histogram's count.
func scrape(t *testing.T, addr string) uint64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text format: %v", err)
	}
	fam, ok := fams["hoplat_proxy_residence_seconds"]
	if !ok {
		return 0
	}
	for _, m := range fam.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "direction" && l.GetValue() == "to_upstream" {
				return m.GetHistogram().GetSampleCount()
			}
		}
	}
	return 0
}

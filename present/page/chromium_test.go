package page

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/present/phrase"
)

// browser is headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: it reads NUL-terminated JSON messages
// on fd 3 and writes its own on fd 4), so the test needs no WebSocket and
// no port.
type browser struct {
	cmd     *exec.Cmd
	toB     *os.File // our end of fd 3
	fromB   *os.File // our end of fd 4
	session string

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan message
	events  []message
	evented chan struct{} // a new event arrived
	done    chan struct{} // the reader has ended
}

type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

// chromium finds the headless shell Debian ships (make deps installs
// it), or skips: fails under HOPLAT_REQUIRE_INTEGRATION.
func chromium(t *testing.T) string {
	t.Helper()
	peer.Integration(t, "chromium")
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser"} {
		if p, err := peer.Find(name); err == nil {
			return p
		}
	}
	if p := "/usr/lib/chromium/chromium-headless-shell"; fileExists(p) {
		return p
	}
	peer.Unavailable(t, "peer: chromium-headless-shell not found on PATH (install it with `make deps`)")
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	r3, w3, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r4, w4, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "about:blank")
	cmd.ExtraFiles = []*os.File{r3, w4}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r3.Close()
	w4.Close()
	b := &browser{cmd: cmd, toB: w3, fromB: r4, waiting: map[int]chan message{}, evented: make(chan struct{}, 1), done: make(chan struct{})}
	go b.read()
	t.Cleanup(func() {
		b.call(t, "", "Browser.close", nil)
		b.toB.Close()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill() // by its PID: the one we started
			<-exited
		}
		<-b.done
		b.fromB.Close()
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", tail(stderr.String(), 3000))
		}
	})
	return b
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (b *browser) read() {
	defer close(b.done)
	r := bufio.NewReader(b.fromB)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, c := range b.waiting {
				close(c)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if c, ok := b.waiting[m.ID]; ok && m.ID != 0 {
			delete(b.waiting, m.ID)
			c <- m
		} else if m.Method != "" {
			b.events = append(b.events, m)
			select {
			case b.evented <- struct{}{}:
			default:
			}
		}
		b.mu.Unlock()
	}
}

// call sends a command (to the page's session unless session is "") and
// returns its result.
func (b *browser) call(t *testing.T, session, method string, params any) json.RawMessage {
	t.Helper()
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	c := make(chan message, 1)
	b.waiting[id] = c
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, _ := json.Marshal(msg)
	if _, err := b.toB.Write(append(raw, 0)); err != nil {
		if method == "Browser.close" {
			return nil
		}
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m, ok := <-c:
		if !ok {
			if method != "Browser.close" {
				t.Fatalf("%s: chromium closed the pipe", method)
			}
			return nil
		}
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error.Message)
		}
		return m.Result
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: no answer in 60 s", method)
	}
	return nil
}

// waitEvent waits for an event of method after index from, returning the
// index past it.
func (b *browser) waitEvent(t *testing.T, method string, from int) int {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		b.mu.Lock()
		for i := from; i < len(b.events); i++ {
			if b.events[i].Method == method {
				b.mu.Unlock()
				return i + 1
			}
		}
		b.mu.Unlock()
		select {
		case <-b.evented:
		case <-b.done:
			t.Fatalf("chromium exited before %s", method)
		case <-deadline:
			t.Fatalf("no %s in 60 s", method)
		}
	}
}

func (b *browser) eventCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.events)
}

// open attaches to a new page target and switches on the domains whose
// events the test reads.
func (b *browser) open(t *testing.T) {
	var target struct{ TargetID string }
	json.Unmarshal(b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var att struct{ SessionID string }
	json.Unmarshal(b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	b.session = att.SessionID
	for _, d := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		b.call(t, b.session, d, nil)
	}
}

func (b *browser) eval(t *testing.T, expr string, v any) {
	t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct{ Text string }
	}
	json.Unmarshal(b.call(t, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &res)
	if res.ExceptionDetails != nil {
		t.Fatalf("%s: %s", expr, res.ExceptionDetails.Text)
	}
	if err := json.Unmarshal(res.Result.Value, v); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
}

// screenshot sets the viewport to width, lets the page grow to its full
// height and writes it as PNG to file.
func (b *browser) screenshot(t *testing.T, width int, file string) (scrollWidth int) {
	t.Helper()
	metrics := func(h int) {
		b.call(t, b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
			"width": width, "height": h, "deviceScaleFactor": 1, "mobile": width < 600})
	}
	metrics(900)
	var height int
	b.eval(t, "document.documentElement.scrollHeight", &height)
	b.eval(t, "document.documentElement.scrollWidth", &scrollWidth)
	metrics(min(height, 16000))
	var shot struct{ Data string }
	json.Unmarshal(b.call(t, b.session, "Page.captureScreenshot", map[string]any{"format": "png"}), &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot at %d px: %d bytes, %v", width, len(png), err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	return scrollWidth
}

// screenshotDir is where the pages and screenshots go: HOPLAT_REPORT_OUT
// when set (a run's --out directory), else the test's temp dir.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("HOPLAT_REPORT_OUT"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// TestChromium renders report.html from real runs' JSON (testdata: the
// default job, a thread and service-time sweep, a chain sweep) and loads
// each in headless Chromium from disk: no console message of level
// error, no exception, no request but the page's own file, every path in
// the text the browser lays out with its added p50, no sideways scrolling
// at 400 px, and full-page screenshots at 1280 and 400 px
// (golden-NAME-1280.png, golden-NAME-400.png). When HOPLAT_REPORT_OUT
// names a run's --out directory, that run's own report.html (drawn with
// its histograms) is loaded and checked too, against its report.json,
// and shot as report-1280.png and report-400.png beside it.
func TestChromium(t *testing.T) {
	bin := chromium(t)
	dir := screenshotDir(t)
	for _, name := range []string{"run.json", "sweep.json", "chain.json"} {
		t.Run(name, func(t *testing.T) {
			r := golden(t, name)
			stem := "golden-" + strings.TrimSuffix(name, ".json")
			file := filepath.Join(dir, stem+".html")
			if err := WriteFile(file, r); err != nil {
				t.Fatal(err)
			}
			checkInBrowser(t, bin, file, r, filepath.Join(dir, stem+"-"))
		})
	}
	if out := os.Getenv("HOPLAT_REPORT_OUT"); out != "" && fileExists(filepath.Join(out, FileName)) {
		t.Run("out", func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			var r hop.Report
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			checkInBrowser(t, bin, filepath.Join(out, FileName), &r, filepath.Join(out, "report-"))
		})
	}
}

// checkInBrowser loads file, checks it against r and writes its
// screenshots as shots+"1280.png" and shots+"400.png".
func checkInBrowser(t *testing.T, bin, file string, r *hop.Report, shots string) {
	b := startBrowser(t, bin)
	b.open(t)
	url := "file://" + file
	from := b.eventCount()
	b.call(t, b.session, "Page.navigate", map[string]any{"url": url})
	b.waitEvent(t, "Page.loadEventFired", from)

	var text string
	b.eval(t, "document.body.innerText", &text)
	flat := collapse(text)
	sw := sweptOf(r.Paths)
	for _, p := range r.Paths {
		if !strings.Contains(flat, p.Name) {
			t.Errorf("%s: not in the page as laid out", p.Name)
		}
		if a := p.AddedUs; a != nil && p.Relay != hop.Direct {
			if !strings.Contains(flat, collapse(p.Name+" "+sw.settingText(p)+" "+phrase.Us(p.LatencyUs.P50)+" "+phrase.Us(p.LatencyUs.P99)+" "+signed(a.P50))) {
				t.Errorf("%s: its row with added p50 %s not in the page", p.Name, signed(a.P50))
			}
		}
	}
	wide := b.screenshot(t, 1280, shots+"1280.png")
	narrow := b.screenshot(t, 400, shots+"400.png")
	if narrow > 400 {
		t.Errorf("at 400 px the page is %d px wide: it scrolls sideways", narrow)
	}
	if wide > 1280 {
		t.Errorf("at 1280 px the page is %d px wide", wide)
	}
	b.mu.Lock()
	events := append([]message(nil), b.events...)
	b.mu.Unlock()
	for _, e := range events {
		if problem := badEvent(e, url); problem != "" {
			t.Error(problem)
		}
	}
	t.Logf("%s: screenshots %s1280.png and %s400.png", file, shots, shots)
}

// badEvent names what is wrong with an event: a console error, an
// exception, a log entry of level error, or a request for anything but
// the page itself.
func badEvent(e message, page string) string {
	switch e.Method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string
			Args []struct{ Value any }
		}
		json.Unmarshal(e.Params, &p)
		if p.Type == "error" || p.Type == "assert" {
			return fmt.Sprintf("console %s: %v", p.Type, p.Args)
		}
	case "Runtime.exceptionThrown":
		return "exception: " + string(e.Params)
	case "Log.entryAdded":
		var p struct {
			Entry struct{ Level, Text, Source, URL string }
		}
		json.Unmarshal(e.Params, &p)
		if p.Entry.Level == "error" {
			return fmt.Sprintf("log error (%s): %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL)
		}
	case "Network.requestWillBeSent":
		var p struct{ Request struct{ URL string } }
		json.Unmarshal(e.Params, &p)
		if u := p.Request.URL; u != page && u != "about:blank" {
			return "a request left the file: " + u
		}
	}
	return ""
}

// The browser checks can fail: a page that fetches an image and logs an
// error is caught by both.
func TestChromiumSeesWhatLeaves(t *testing.T) {
	bin := chromium(t)
	file := filepath.Join(t.TempDir(), "leaky.html")
	leaky := `<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"/><script>console.error("broken")</script></body></html>`
	if err := os.WriteFile(file, []byte(leaky), 0o644); err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t, bin)
	b.open(t)
	from := b.eventCount()
	b.call(t, b.session, "Page.navigate", map[string]any{"url": "file://" + file})
	b.waitEvent(t, "Page.loadEventFired", from)
	b.mu.Lock()
	events := append([]message(nil), b.events...)
	b.mu.Unlock()
	var request, console bool
	for _, e := range events {
		p := badEvent(e, "file://"+file)
		request = request || strings.HasPrefix(p, "a request left the file: http://127.0.0.1:9/")
		console = console || strings.HasPrefix(p, "console error")
	}
	if !request || !console {
		t.Errorf("request seen %v, console error seen %v", request, console)
	}
}

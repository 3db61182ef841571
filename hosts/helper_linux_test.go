//go:build linux

package hosts

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// helperEnv makes the test binary a stand-in for hopbench: it brings up
// two namespaces, starts pongd (the path in the variable's value) in one,
// prints "ready PONGD_PID", and runs until SIGTERM or SIGINT, then closes
// the testbed and exits, as hopbench does on Ctrl-C.
const helperEnv = "HOPLAT_HOSTS_HELPER_PONGD"

func runHelper() (int, bool) {
	pongd := os.Getenv(helperEnv)
	if pongd == "" {
		return 0, false
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := helper(ctx, pongd); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1, true
	}
	return 0, true
}

func helper(ctx context.Context, pongd string) (err error) {
	tb, err := Up(ctx, twoNamespaces(), Options{})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := tb.Close(); err == nil {
			err = cerr
		}
	}()
	lines := newLines()
	p, err := tb.Start(ctx, "db", Command{Argv: []string{pongd, "--listen", "tcp:10.77.0.2:0"}, Stdout: lines})
	if err != nil {
		return err
	}
	if _, err := lines.await(ctx, "listening ", 10*time.Second); err != nil {
		return err
	}
	fmt.Printf("ready %d\n", p.PID())
	<-ctx.Done()
	return nil
}

func twoNamespaces() []Host {
	return []Host{
		{Name: "app", Kind: NetNS, Namespace: "app", Spec: "netns:app"},
		{Name: "db", Kind: NetNS, Namespace: "db", Spec: "netns:db"},
	}
}

// lines is an io.Writer that hands each complete line to whoever awaits
// it.
type lines struct {
	c   chan string
	buf []byte
}

func newLines() *lines { return &lines{c: make(chan string, 256)} }

func (l *lines) Write(b []byte) (int, error) {
	l.buf = append(l.buf, b...)
	for {
		i := strings.IndexByte(string(l.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		select {
		case l.c <- string(l.buf[:i]):
		default: // nobody reads this many lines
		}
		l.buf = l.buf[i+1:]
	}
}

// await returns the rest of the first line starting with prefix.
func (l *lines) await(ctx context.Context, prefix string, timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var seen []string
	for {
		select {
		case s := <-l.c:
			if rest, ok := strings.CutPrefix(s, prefix); ok {
				return rest, nil
			}
			seen = append(seen, s)
		case <-ctx.Done():
			return "", ctx.Err()
		case <-timer.C:
			return "", fmt.Errorf("no %q line after %v (saw %q)", prefix, timeout, seen)
		}
	}
}

// readyPID reads the helper's "ready PID" line.
func readyPID(sc *bufio.Scanner) (int, error) {
	for sc.Scan() {
		var pid int
		if _, err := fmt.Sscanf(sc.Text(), "ready %d", &pid); err == nil {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("helper ended before it was ready: %v", sc.Err())
}

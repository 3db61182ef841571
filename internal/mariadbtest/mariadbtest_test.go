package mariadbtest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := StopShared(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		code = 1
	}
	os.Exit(code)
}

func TestSharedServerServesSysbenchTable(t *testing.T) {
	s := Shared(t)
	if err := s.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, via := range [][]string{{"-h127.0.0.1", "-P" + strings.Split(s.Addr, ":")[1]}, {"--socket=" + s.Socket}} {
		args := append([]string{"--no-defaults", "-u" + s.User, "-p" + s.Password, "-N", "-e", "SELECT COUNT(*) FROM sbtest1", s.DB}, via...)
		out, err := exec.Command("mariadb", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("mariadb %v: %v\n%s", via, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != "10000" {
			t.Fatalf("rows in sbtest1 via %v = %q, want 10000", via, got)
		}
	}
	if syscall.Kill(s.PID, 0) != nil {
		t.Fatalf("PID %d is not alive", s.PID)
	}
}

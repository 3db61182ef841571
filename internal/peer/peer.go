package peer

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hoplat/hoplat/internal/locate"
)

// RequireEnv is the variable that turns a skipped integration test into a
// failure.
const RequireEnv = "HOPLAT_REQUIRE_INTEGRATION"

// Required reports whether integration tests must run rather than skip.
func Required() bool {
	v := os.Getenv(RequireEnv)
	return v != "" && v != "0" && v != "false"
}

// Find returns the path of the program name, from PATH or the sbin
// directories (locate.Find), or an error with the install hint.
func Find(name string) (string, error) {
	p, err := locate.Find(name)
	if err != nil {
		return "", fmt.Errorf("peer: %s not found on PATH (install it with `make deps`)", name)
	}
	return p, nil
}

// Integration skips t under -short (go test -short, make test-short): t is
// an integration test that runs what (a peer, a real server, hoplat's own
// binaries, the tracer), which the fast loop leaves to make test. It is a
// plain skip even where integration is required: -short asks for it.
func Integration(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("integration test (%s): skipped by -short", what)
	}
}

// Require returns the path of the program name, or skips t (fails it when
// integration is required) with the reason. Under -short it skips t
// (Integration).
func Require(t testing.TB, name string) string {
	t.Helper()
	Integration(t, name)
	p, err := Find(name)
	if err != nil {
		Unavailable(t, err.Error())
	}
	return p
}

// Unavailable skips t with why, or fails it when integration is required.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s (and %s is set)", why, RequireEnv)
	}
	t.Skip(why)
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// Hoplat returns the path of one of hoplat's own binaries (pongd, pingpong,
// hoprelay, hopbench): from $HOPLAT_BIN when `make test` set it, else built
// once per test process into a temporary directory. Under -short it skips t
// (Integration).
func Hoplat(t testing.TB, name string) string {
	t.Helper()
	Integration(t, name)
	p, err := hoplatBin(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func hoplatBin(name string) (string, error) {
	if dir := os.Getenv("HOPLAT_BIN"); dir != "" {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[name]; ok {
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "hoplat-bin-")
	if err != nil {
		return "", err
	}
	// MkdirTemp's 0700 would keep a test that runs a binary as another
	// user (nobody, to check the unprivileged path) from executing it.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	p := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", p, "./cmd/"+name)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("peer: go build ./cmd/%s: %v\n%s", name, err, out)
	}
	built[name] = p
	return p, nil
}

// RemoveBuilt removes the binaries Hoplat built for this test process:
// every package's TestMain calls it (internal/testmain) once m.Run returns,
// so that a plain `go test` leaves no hoplat-bin-* directory behind.
func RemoveBuilt() {
	buildMu.Lock()
	defer buildMu.Unlock()
	for name, p := range built {
		os.RemoveAll(filepath.Dir(p))
		delete(built, name)
	}
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("peer: go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("peer: not inside the hoplat module")
	}
	return filepath.Dir(mod), nil
}

// ForEveryone copies the executables at paths into a fresh directory that
// every user may enter and read, under the system's temp directory, and
// returns it: a test that runs a program as another user (nobody) cannot
// run it from a checkout under a 0700 home or from go test's own build
// directory, which is 0700 too. The directory goes when the test ends.
func ForEveryone(t testing.TB, paths ...string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hoplat-everyone-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// MkdirTemp makes it 0700, and the umask may narrow what WriteFile asks.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(dir); d != "/"; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			t.Fatalf("peer: %s is not searchable by other users (mode %v): point TMPDIR at a directory they may enter", d, fi.Mode().Perm())
		}
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.Base(p))
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dst, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Root skips t with why, or fails it when integration is required, unless
// the test process runs as root: namespaces, BPF and running a program as
// another user all take it.
func Root(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Unavailable(t, why)
	}
}

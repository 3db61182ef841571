package hosts

import (
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/affinity"
)

func TestPlatform(t *testing.T) {
	tests := []struct{ uname, goos, goarch string }{
		{"Linux x86_64", "linux", "amd64"},
		{"Linux aarch64", "linux", "arm64"},
		{"Linux armv7l", "linux", "arm"},
		{"Linux i686", "linux", "386"},
		{"Linux riscv64", "linux", "riscv64"},
		{"Darwin arm64", "darwin", "arm64"},
		{"FreeBSD amd64", "freebsd", "amd64"},
	}
	for _, tc := range tests {
		goos, goarch, err := platform(tc.uname)
		if err != nil || goos != tc.goos || goarch != tc.goarch {
			t.Errorf("%q: %s/%s %v, want %s/%s", tc.uname, goos, goarch, err, tc.goos, tc.goarch)
		}
	}
	for _, bad := range []string{"", "Linux", "Linux x86_64 extra", "SunOS sun4u", "Linux mips"} {
		if _, _, err := platform(bad); err == nil || !strings.Contains(err.Error(), "uname -sm") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// exit255 is an *exec.ExitError with status 255, as ssh exits for its own
// errors.
func exit255(t *testing.T) error {
	t.Helper()
	err := exec.Command("sh", "-c", "exit 255").Run()
	if err == nil {
		t.Fatal("sh exited 0")
	}
	return err
}

func TestSSHError(t *testing.T) {
	e255 := exit255(t)
	tests := []struct {
		stderr string
		is     error
		want   string
	}{
		{"root@10.77.0.2: Permission denied (publickey).", ErrAuth, "load a key into ssh-agent"},
		{"Host key verification failed.", ErrAuth, "connect once by hand"},
		{"ssh: connect to host 10.77.0.2 port 2223: Connection refused", ErrUnreachable, "Connection refused"},
		{"ssh: connect to host 192.0.2.1 port 22: Connection timed out", ErrUnreachable, "timed out"},
		{"ssh: Could not resolve hostname nowhere: Name or service not known", ErrUnreachable, "resolve"},
		{"ssh: connect to host 10.1.1.1 port 22: No route to host", ErrUnreachable, "No route"},
	}
	for _, tc := range tests {
		err := sshError(tc.stderr, e255)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v", tc.stderr, err)
		}
	}
	// A remote command's own failure is not ssh's: no sentinel.
	err := sshError("ls: cannot access 'x': Permission denied", exec.Command("sh", "-c", "exit 2").Run())
	if errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("remote failure: %v", err)
	}
}

// shellQuote's output, read by sh, is the argument it quoted.
func TestShellQuote(t *testing.T) {
	args := []string{"plain", "", "two words", "it's", `"dq" $HOME \ ; rm -rf / #`, "tcp:10.77.0.2:0", "a\nb", "-x=1,2"}
	out, err := exec.Command("sh", "-c", "for a in "+shellJoin(args)+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Join(got, "|") != strings.Join(args, "|") {
		t.Errorf("sh read %q, want %q", got, args)
	}
}

func FuzzShellQuote(f *testing.F) {
	f.Add("it's $x")
	f.Fuzz(func(t *testing.T, s string) {
		q := shellQuote(s)
		// Either the safe set untouched, or one single-quoted word whose
		// only single quotes are the '\'' escapes.
		if q == s {
			return
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(q, "'"), "'")
		if strings.ReplaceAll(strings.ReplaceAll(inner, `'\''`, ""), "'", "") != strings.ReplaceAll(inner, `'\''`, "") {
			t.Fatalf("%q quoted as %q", s, q)
		}
	})
}

func FuzzPlatform(f *testing.F) {
	f.Add("Linux x86_64")
	f.Fuzz(func(t *testing.T, s string) {
		goos, goarch, err := platform(s)
		if err == nil && (goos == "" || goarch == "") {
			t.Fatalf("%q: %q/%q without error", s, goos, goarch)
		}
	})
}

func TestParseEnv(t *testing.T) {
	e, err := parseEnv("hostname=db1\nuname=Linux x86_64\nkernel=6.1.0-18-amd64\ncores=8\ncpu_model=AMD EPYC 7B13\nclock_source=tsc\nnoise\n")
	want := affinity.Env{Hostname: "db1", OS: "linux", Arch: "amd64", Kernel: "6.1.0-18-amd64", CPUModel: "AMD EPYC 7B13", Cores: 8, ClockSource: "tsc"}
	if err != nil || !reflect.DeepEqual(e, want) {
		t.Errorf("got %+v %v, want %+v", e, err, want)
	}
	// A BSD has no /proc/cpuinfo or clocksource: those stay empty.
	if e, err := parseEnv("uname=FreeBSD amd64\ncores=4\nclock_source=\n"); err != nil || e.CPUModel != "" || e.Cores != 4 {
		t.Errorf("freebsd: %+v %v", e, err)
	}
	for _, bad := range []string{"", "cores=4\n", "uname=Linux x86_64\ncores=many\n", "uname=Plan9 mips\n"} {
		if _, err := parseEnv(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParseEnv(f *testing.F) {
	f.Add("hostname=a\nuname=Linux aarch64\ncores=2\n")
	f.Fuzz(func(t *testing.T, s string) {
		e, err := parseEnv(s)
		if err == nil && (e.OS == "" || e.Arch == "" || e.Cores < 0) {
			t.Fatalf("%q: %+v", s, e)
		}
	})
}

// GoBuild builds a command of this module for the platform asked, once.
func TestGoBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out := t.TempDir()
	build := GoBuild("..", out)
	p, err := build("pongd", runtime.GOOS, runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(out, runtime.GOOS+"_"+runtime.GOARCH, "pongd"); p != want {
		t.Errorf("built %s, want %s", p, want)
	}
	if err := exec.Command(p, "--help").Run(); err != nil {
		t.Errorf("%s --help: %v", p, err)
	}
	if again, err := build("pongd", runtime.GOOS, runtime.GOARCH); err != nil || again != p {
		t.Errorf("second build %s %v", again, err)
	}
	if _, err := build("../x", runtime.GOOS, runtime.GOARCH); err == nil {
		t.Error("built a path")
	}
	if _, err := build("nosuch", runtime.GOOS, runtime.GOARCH); err == nil || !strings.Contains(err.Error(), "build nosuch for") {
		t.Errorf("missing command: %v", err)
	}
}

package driver

import (
	"os"
	"runtime"
	"testing"
)

func TestReadProcUse(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, ok := readProcUse(os.Getpid())
	if !ok || u.rssKiB < 1024 || u.threads < 2 || u.fds < 4 {
		t.Fatalf("this test process: %+v, %v", u, ok)
	}
	if _, ok := readProcUse(0); ok {
		t.Error("pid 0 read")
	}
}

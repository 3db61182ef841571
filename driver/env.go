package driver

import (
	"os"
	"runtime"
	"strings"
)

// Env is the machine a report was measured on.
//
// TODO(hopbench): becomes results.Env (results.CollectEnv) once results is
// on main; the fields and JSON names are the same.
type Env struct {
	Hostname   string            `json:"hostname"`
	OS         string            `json:"os"`
	Arch       string            `json:"arch"`
	Kernel     string            `json:"kernel"`
	Cores      int               `json:"cores"`
	GOMAXPROCS int               `json:"gomaxprocs"`
	GoVersion  string            `json:"go_version"`
	Pinning    map[string]string `json:"pinning"`
}

// CollectEnv describes this machine.
func CollectEnv() Env {
	host, _ := os.Hostname()
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = strings.TrimSpace(string(b))
	}
	return Env{
		Hostname: host, OS: runtime.GOOS, Arch: runtime.GOARCH, Kernel: kernel,
		Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
	}
}

func withPinning(e Env, pinning map[string]string) Env {
	if len(pinning) > 0 {
		e.Pinning = pinning
	}
	return e
}

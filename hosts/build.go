package hosts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// GoBuild returns an Options.Binary that builds hoplat's binaries from the
// module source in moduleDir for the platform asked, into
// outDir/GOOS_GOARCH/NAME, once per binary and platform, with cgo off so
// that the result runs on any machine of that platform (no libc to match).
// It needs the go command; a caller with prebuilt binaries passes its own
// function instead.
func GoBuild(moduleDir, outDir string) func(name, goos, goarch string) (string, error) {
	var mu sync.Mutex
	built := map[string]string{}
	return func(name, goos, goarch string) (string, error) {
		if strings.ContainsAny(name, `/\`) || name == "" || name[0] == '.' {
			return "", fmt.Errorf("build %q: not a command name", name)
		}
		mu.Lock()
		defer mu.Unlock()
		out := filepath.Join(outDir, goos+"_"+goarch, name)
		if p, ok := built[out]; ok {
			return p, nil
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			return "", fmt.Errorf("build %s for %s/%s: %w", name, goos, goarch, err)
		}
		cmd := exec.Command(goTool, "build", "-trimpath", "-o", out, "./cmd/"+name)
		cmd.Dir = moduleDir
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build %s for %s/%s: %w: %s", name, goos, goarch, err, strings.TrimSpace(string(b)))
		}
		built[out] = out
		return out, nil
	}
}

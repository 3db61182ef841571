package locate

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinariesDoNotLinkTesting: no command under cmd/ may link the testing
// package (it registers test flags and grows every binary); the usual way
// it creeps in is production code importing a test helper such as
// internal/peer.
func TestBinariesDoNotLinkTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "github.com/hoplat/hoplat/cmd/...").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/...: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps ./cmd/... listed %d packages: %q", len(deps), deps)
	}
	for _, d := range deps {
		if d == "testing" {
			who, _ := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}: {{join .Imports " "}}`, "github.com/hoplat/hoplat/cmd/...").Output()
			var importers []string
			for _, line := range strings.Split(string(who), "\n") {
				if strings.Contains(" "+line+" ", " testing ") {
					importers = append(importers, strings.SplitN(line, ":", 2)[0])
				}
			}
			t.Fatalf("a binary under cmd/ links testing, imported by %v", importers)
		}
	}
}

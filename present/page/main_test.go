package page

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

func TestMain(m *testing.M) {
	check := leak.Start("report")
	os.Exit(check.Finish(m.Run(), true))
}

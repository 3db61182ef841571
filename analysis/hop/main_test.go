package hop

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

func TestMain(m *testing.M) {
	check := leak.Start("hop")
	os.Exit(check.Finish(m.Run(), false))
}

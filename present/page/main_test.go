package page

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "page", Goroutines: true}))
}

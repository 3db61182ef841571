package leak_test

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// A package's TestMain counts before its tests run and checks after.
func Example() {
	var m *testing.M // the one TestMain receives
	check := leak.Start("mypkg")
	code := 0
	if m != nil {
		code = m.Run()
	}
	if code = check.Finish(code, true); code != 0 {
		os.Exit(code)
	}
	// Output:
}

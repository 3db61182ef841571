package locate_test

import (
	"errors"
	"fmt"

	"github.com/hoplat/hoplat/internal/locate"
)

// A missing program's error says where it was looked for.
func ExampleFind() {
	_, err := locate.Find("hoplat-no-such-peer")
	fmt.Println(errors.Is(err, locate.ErrNotFound))
	fmt.Println(err)
	// Output:
	// true
	// locate: hoplat-no-such-peer: not found on PATH or in [/usr/sbin /usr/local/sbin /sbin]
}

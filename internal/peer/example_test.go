package peer_test

import (
	"fmt"

	"github.com/hoplat/hoplat/internal/peer"
)

// Find looks on PATH and in the sbin directories, where mariadbd and
// haproxy live; a missing program's error carries the install hint.
func ExampleFind() {
	_, err := peer.Find("no-such-peer-hoplat")
	fmt.Println(err)
	// Output: peer: no-such-peer-hoplat not found on PATH (install it with `make deps`)
}

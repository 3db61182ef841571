package sockets_test

import (
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/sockets"
)

// A socat command line's addresses parse as they are and print in hoplat's
// canonical form.
func ExampleParse() {
	for _, s := range []string{
		"TCP4-LISTEN:4008,reuseaddr,fork,nodelay",
		"TCP4:127.0.0.1:3000,nodelay",
		"UNIX-LISTEN:/tmp/mysql.sock,fork",
	} {
		a, err := sockets.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-8s %-7s %-16s %s\n", a.Role, a.Network, a.NetAddr(), a)
	}
	_, err := sockets.Parse("TCP4-LISTEN:4008,nodelya")
	fmt.Println(err)
	// Output:
	// listen   tcp4    127.0.0.1:4008   tcp4-listen:4008,nodelay,reuseaddr,fork
	// any      tcp4    127.0.0.1:3000   tcp4:127.0.0.1:3000,nodelay
	// listen   unix    /tmp/mysql.sock  unix-listen:/tmp/mysql.sock,fork
	// sockets: parse "TCP4-LISTEN:4008,nodelya": unknown option "nodelya"
}

// Copy moves a stream through one buffer and tells its caller of every
// chunk, which is where a relay counts bytes.
func ExampleCopy() {
	var dst strings.Builder
	chunks := 0
	ended, err := sockets.Copy(&dst, strings.NewReader("hello, relay"), make([]byte, 5), func(n int) bool {
		chunks++
		return true
	})
	fmt.Println(dst.String(), chunks, ended, err)
	// Output: hello, relay 3 true <nil>
}

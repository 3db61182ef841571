package cli

import (
	"errors"
	"fmt"
	"testing"
)

// Each message says the flag and the value typed once: the prefixes the
// layers below stacked, and their restatements of the value, are cut.
func TestBadValue(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{BadList("--threads", "0", errors.New(`pingpong: thread counts: list "0": 0: want at least 1`)),
			`--threads "0": want at least 1`},
		{BadList("--threads", "1,0", errors.New(`list "1,0": 0: want at least 1`)),
			`--threads "1,0": 0: want at least 1`},
		{BadList("--threads", "-3", errors.New(`"-3": a negative number or a range with no start (ranges read LO-HI, as 1-4)`)),
			`--threads "-3": a negative number or a range with no start (ranges read LO-HI, as 1-4)`},
		{BadValue("--io", "fast", errors.New(`iomodel: I/O model "fast": want auto, netpoll, blocking or spin`)),
			`--io "fast": want auto, netpoll, blocking or spin`},
		{BadValue("--format", "xml", errors.New(`results: unknown format "xml" (want text, json or csv)`)),
			`--format "xml": unknown format (want text, json or csv)`},
		{BadValue("--size", "3", errors.New(`echo: size 3: want 12 to 1048576 bytes`)),
			`--size "3": want 12 to 1048576 bytes`},
		{BadValue("--x", "v", errors.New("connection refused")), `--x "v": connection refused`},
		{BadAddress("--target", "127.0.0.1:7000", errors.New(`sockets: parse "127.0.0.1:7000": unknown address type "127.0.0.1"`)),
			`--target "127.0.0.1:7000": no address type; did you mean tcp:127.0.0.1:7000?`},
		{BadAddress("--listen", "/tmp/p.sock", errors.New("x")), `--listen "/tmp/p.sock": no address type; did you mean unix:/tmp/p.sock?`},
		{BadAddress("LISTEN", "TCP4-LISTEN:x", errors.New(`sockets: parse "TCP4-LISTEN:x": bad port "x"`)),
			`LISTEN "TCP4-LISTEN:x": bad port "x"`},
	} {
		if !IsUsage(tc.err) || tc.err.Error() != tc.want {
			t.Errorf("%q (usage %v), want %q", tc.err, IsUsage(tc.err), tc.want)
		}
	}
}

func TestAddressHint(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:7000": "tcp:127.0.0.1:7000", "[::1]:3306": "tcp:[::1]:3306", "localhost:3306": "tcp:localhost:3306",
		"7000": "tcp:7000", "/run/mysqld/mysqld.sock": "unix:/run/mysqld/mysqld.sock",
		"localhost": "", "host:port": "", "tcp:127.0.0.1:1": "",
	} {
		if got := AddressHint(in); got != want {
			t.Errorf("AddressHint(%q) = %q, want %q", in, got, want)
		}
	}
}

func ExampleBadAddress() {
	err := BadAddress("--target", "127.0.0.1:7000", fmt.Errorf(`sockets: parse "127.0.0.1:7000": unknown address type "127.0.0.1"`))
	fmt.Println(err, IsUsage(err))
	// Output: --target "127.0.0.1:7000": no address type; did you mean tcp:127.0.0.1:7000? true
}

package relay_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/relay"
)

func TestParseUsers(t *testing.T) {
	got, err := relay.ParseUsers(strings.NewReader("# accounts\nsbtest:sbtest\n\nbench:a:b:c\r\nempty:\n"))
	if want := map[string]string{"sbtest": "sbtest", "bench": "a:b:c", "empty": ""}; err != nil || !maps.Equal(got, want) {
		t.Fatalf("ParseUsers: %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "# none\n", "nocolon\n", ":pw\n", "a:1\na:2\n", "a:b\x00\n"} {
		if _, err := relay.ParseUsers(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseUsers(%q): no error", bad)
		}
	}
}

// FuzzParseUsers: a users file either parses into accounts that each name
// a user, or is refused; it never panics.
func FuzzParseUsers(f *testing.F) {
	f.Add("sbtest:sbtest\n# c\nb:x:y\n")
	f.Add(":\n")
	f.Fuzz(func(t *testing.T, s string) {
		users, err := relay.ParseUsers(strings.NewReader(s))
		if err != nil {
			return
		}
		for name := range users {
			if name == "" || strings.ContainsAny(name, "\n\x00") {
				t.Errorf("user %q from %q", name, s)
			}
		}
	})
}

func ExampleParseUsers() {
	users, err := relay.ParseUsers(strings.NewReader("# hoprelay --users FILE\nsbtest:sbtest\nbench:s3cret\n"))
	fmt.Println(len(users), users["bench"], err)
	// Output: 2 s3cret <nil>
}

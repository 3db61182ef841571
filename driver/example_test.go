package driver_test

import (
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver"
)

// The default run's paths, and the socat command line of one of them.
func ExampleDefaultPaths() {
	for _, p := range driver.DefaultPaths(hop.DefaultRelays, []hop.Transport{hop.TCP, hop.UNIX}) {
		fmt.Printf("%-20s baseline %s\n", p.Name(), p.Baseline().Name())
	}
	argv := driver.SocatArgs("socat", driver.UNIXAddr("/tmp/hb/mysql.sock"), driver.TCPAddr(3000))
	fmt.Println(strings.Join(argv, " "))
	// Output:
	// direct tcp           baseline direct tcp
	// direct unix          baseline direct unix
	// goroutine tcp->tcp   baseline direct tcp
	// goroutine unix->tcp  baseline direct unix
	// epoll tcp->tcp       baseline direct tcp
	// epoll unix->tcp      baseline direct unix
	// splice tcp->tcp      baseline direct tcp
	// splice unix->tcp     baseline direct unix
	// sockmap tcp->tcp     baseline direct tcp
	// socat tcp->tcp       baseline direct tcp
	// socat unix->tcp      baseline direct unix
	// haproxy tcp->tcp     baseline direct tcp
	// socat UNIX-LISTEN:/tmp/hb/mysql.sock,fork,backlog=1024 TCP4:127.0.0.1:3000,nodelay
}

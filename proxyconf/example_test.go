package proxyconf_test

import (
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/proxyconf"
	"github.com/hoplat/hoplat/sockets"
)

// A balancer in front of two MySQL servers, checked as HAProxy's
// option mysql-check does.
func ExampleHAProxy() {
	listen, _ := sockets.Parse("tcp:127.0.0.1:4000")
	a, _ := sockets.Parse("tcp:10.77.0.2:3306")
	b, _ := sockets.Parse("tcp:10.77.0.3:3306")
	cfg := proxyconf.HAProxy([]proxyconf.HAProxyRoute{{Name: "galera", Listen: listen,
		Connect: []sockets.Addr{a, b}, MySQL: true, CheckUser: "haproxy"}})
	_, backend, _ := strings.Cut(cfg, "\nbackend ")
	fmt.Print("backend " + backend)
	// Output:
	// backend b_p0_galera
	// 	balance roundrobin
	// 	option redispatch 1
	// 	retries 3
	// 	option mysql-check user haproxy
	// 	server s0 10.77.0.2:3306 check inter 2s
	// 	server s1 10.77.0.3:3306 check inter 2s
}

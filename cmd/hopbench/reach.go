package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/sockets"
)

// reachTimeout bounds the dials of reachable, all made at once: a server
// that answers at all answers a loopback or LAN connect in far less.
const reachTimeout = 1500 * time.Millisecond

// server is an address the run would dial, and the flag that named it.
type server struct {
	flag, value string
	addr        sockets.Addr
}

// servers are the addresses of the servers the user names that hopbench
// does not start: each real backend's and each running proxy's.
func servers(c driver.Config) []server {
	var out []server
	seen := map[string]bool{}
	add := func(flag, value string, a sockets.Addr) {
		if k := flag + " " + a.String(); !seen[k] {
			seen[k] = true
			out = append(out, server{flag, value, a})
		}
	}
	backends := c.Backends
	if len(backends) == 0 {
		backends = []driver.Backend{c.Backend}
	}
	for _, b := range backends {
		for _, a := range []*sockets.Addr{b.TCP, b.UNIX} {
			if a != nil {
				add("--backend", b.String(), *a)
			}
		}
		for _, a := range b.Servers {
			add("--backend", b.String(), a)
		}
	}
	for _, x := range c.Proxies {
		if x.Addr != nil {
			add("--proxy", x.Name+"="+x.Spec, *x.Addr)
		}
	}
	return out
}

// reachable dials every server of servers once, before the machine is
// probed and the first round runs: a backend or a proxy that refuses
// would otherwise cost the whole run and print tables of zeros. The error
// is a usage error naming the flag, its value (password masked) and the
// dial's failure. A topology run is left to the driver, since its servers
// sit on hosts that exist only once it has brought them up.
func reachable(ctx context.Context, c driver.Config) error {
	if c.Hosts != nil {
		return nil
	}
	ss := servers(c)
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Go(func() {
			conn, err := sockets.Dial(ctx, s.addr)
			if err != nil {
				errs[i] = err
				return
			}
			conn.Close()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			why := strings.TrimPrefix(err.Error(), "sockets: ")
			return cli.Usage(fmt.Errorf("%s %s: %s", ss[i].flag, ss[i].value, why))
		}
	}
	return nil
}

package relay

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hoplat/hoplat/sockets"
)

// Balance names how a relay with several upstreams picks one for each
// accepted connection.
type Balance string

const (
	// BalanceRoundRobin takes the upstreams in turn, skipping those marked
	// down, so that the ones up share connections equally: HAProxy's
	// balance roundrobin, MaxScale's readconnroute.
	BalanceRoundRobin Balance = "roundrobin"
	// BalanceLeastConn takes the upstream with the fewest live
	// connections through this relay, in turn among equals: HAProxy's
	// balance leastconn.
	BalanceLeastConn Balance = "leastconn"
)

// Balances lists every Balance, for help texts and errors.
var Balances = []Balance{BalanceRoundRobin, BalanceLeastConn}

// DefaultRetry is how long an upstream that refused a connect is skipped
// when Config names no Retry: HAProxy's default check interval (inter 2s).
const DefaultRetry = 2 * time.Second

// MaxUpstreams bounds the upstream list: a connection's tried upstreams are
// one 64-bit mask, so that choosing allocates nothing.
const MaxUpstreams = 64

// pool is a relay's upstreams and the state each connection's choice reads.
// Every method may be called from any loop or goroutine.
//
// A connect that fails (refused, unreachable, reset) marks its upstream
// down for Config.Retry and the connection tries the next one; an upstream
// marked down is not chosen again until its retry time, when the next
// connection tries it once more (and a success clears the mark). Where
// every upstream left untried is marked down the connection tries them all
// the same, so a cluster that came back whole is found by the first
// connection, not one retry interval later. A connection fails, counted in
// upstream_failed, only once every upstream has refused it.
type pool struct {
	ups     []upstream
	balance Balance
	retry   int64 // ns
	next    atomic.Uint64
	logf    func(format string, args ...any)
}

// upstream is one address of the pool and its tallies.
type upstream struct {
	addr      sockets.Addr
	downUntil atomic.Int64 // nanotime until which it is skipped; 0 when up
	live      atomic.Int64 // connections through it now, connecting included
	conns     atomic.Int64 // connects that succeeded
	failed    atomic.Int64 // connects that failed
}

// UpstreamStats is one upstream's share of a relay's connections.
type UpstreamStats struct {
	Address     string `json:"address"`
	Connections int64  `json:"connections"` // connects to it that succeeded
	Failed      int64  `json:"failed"`      // connects to it refused or failed (each tried the next upstream)
	Active      int64  `json:"active"`      // live connections through it now
	Down        bool   `json:"down"`        // marked down now: skipped until its retry time
}

func newPool(addrs []sockets.Addr, cfg Config) *pool {
	p := &pool{ups: make([]upstream, len(addrs)), balance: cfg.Balance, retry: int64(cfg.Retry), logf: cfg.Logf}
	for i, a := range addrs {
		p.ups[i].addr = a
	}
	return p
}

// pick chooses the upstream a connection tries next, given the mask of
// those it has tried (bit i: upstream i), and counts it live; -1 when every
// one has been tried.
func (p *pool) pick(tried uint64) int {
	n := len(p.ups)
	if n == 1 {
		if tried != 0 {
			return -1
		}
		p.ups[0].live.Add(1)
		return 0
	}
	now := nanotime()
	i := -1
	switch p.balance {
	case BalanceLeastConn:
		i = p.leastConn(tried, now)
	default:
		// Each skipped upstream consumes its turn, so the turns of one
		// that is down pass to the next one up and the upstreams up share
		// connections equally.
		for range n {
			k := int((p.next.Add(1) - 1) % uint64(n))
			if tried&(1<<k) == 0 && !p.down(k, now) {
				i = k
				break
			}
		}
	}
	if i < 0 {
		// Every upstream untried is marked down: try them anyway, in
		// order.
		for k := range n {
			if tried&(1<<k) == 0 {
				i = k
				break
			}
		}
	}
	if i >= 0 {
		p.ups[i].live.Add(1)
	}
	return i
}

// leastConn is the untried upstream up with the fewest live connections,
// the round-robin turn breaking ties; -1 when none is up.
func (p *pool) leastConn(tried uint64, now int64) int {
	n := len(p.ups)
	start := int((p.next.Add(1) - 1) % uint64(n))
	best, bestLive := -1, int64(0)
	for j := range n {
		k := (start + j) % n
		if tried&(1<<k) != 0 || p.down(k, now) {
			continue
		}
		if l := p.ups[k].live.Load(); best < 0 || l < bestLive {
			best, bestLive = k, l
		}
	}
	return best
}

func (p *pool) down(i int, now int64) bool {
	until := p.ups[i].downUntil.Load()
	return until != 0 && now < until
}

// connected records that the connect to upstream i succeeded, clearing a
// down mark.
func (p *pool) connected(i int) {
	u := &p.ups[i]
	u.conns.Add(1)
	if u.downUntil.Load() != 0 && u.downUntil.Swap(0) != 0 && len(p.ups) > 1 {
		p.logf("relay: upstream %s up again", u.addr.NetAddr())
	}
}

// failed records that the connect to upstream i failed with err: it is no
// longer live for this connection and is marked down for the retry
// interval.
func (p *pool) failed(i int, err error) {
	u := &p.ups[i]
	u.live.Add(-1)
	u.failed.Add(1)
	if len(p.ups) == 1 {
		return
	}
	if u.downUntil.Swap(nanotime()+p.retry) == 0 {
		p.logf("relay: upstream %s down, skipped for %v: %v", u.addr.NetAddr(), time.Duration(p.retry), err)
	}
}

// markDown marks upstream i down for the retry interval without counting
// a failed connect: a MySQL router's connection to a replica broke, and its
// reads go elsewhere until then.
func (p *pool) markDown(i int, err error) {
	if len(p.ups) == 1 {
		return
	}
	if p.ups[i].downUntil.Swap(nanotime()+p.retry) == 0 {
		p.logf("relay: upstream %s down, skipped for %v: %v", p.ups[i].addr.NetAddr(), time.Duration(p.retry), err)
	}
}

// done records the end of a connection through upstream i.
func (p *pool) done(i int) { p.ups[i].live.Add(-1) }

func (p *pool) addr(i int) sockets.Addr { return p.ups[i].addr }

// stats is every upstream's tallies now.
func (p *pool) stats() []UpstreamStats {
	now := nanotime()
	out := make([]UpstreamStats, len(p.ups))
	for i := range p.ups {
		u := &p.ups[i]
		out[i] = UpstreamStats{
			Address: u.addr.String(), Connections: u.conns.Load(), Failed: u.failed.Load(),
			Active: u.live.Load(), Down: p.down(i, now),
		}
	}
	return out
}

// checkUpstreams validates a relay's connect addresses.
func checkUpstreams(connect []sockets.Addr) error {
	if len(connect) == 0 {
		return fmt.Errorf("relay: no upstream address")
	}
	if len(connect) > MaxUpstreams {
		return fmt.Errorf("relay: %d upstreams: at most %d", len(connect), MaxUpstreams)
	}
	for _, a := range connect {
		if a.Role == sockets.RoleListen {
			return fmt.Errorf("relay: connect address %s is a listen address", a)
		}
		if !a.IsUnix() && a.Host == "" {
			return fmt.Errorf("relay: connect address %s: no host", a)
		}
	}
	return nil
}

package relay

import (
	"errors"
	"testing"

	"github.com/hoplat/hoplat/sockets"
)

func testPool(n int, b Balance) *pool {
	addrs := make([]sockets.Addr, n)
	for i := range addrs {
		addrs[i] = sockets.Addr{Network: "tcp", Host: "127.0.0.1", Port: 3306 + i}
	}
	cfg, _ := Config{Balance: b}.withDefaults()
	return newPool(addrs, cfg)
}

// TestPickSharesADownUpstreamsTurns: the turns of an upstream marked down
// pass to the next one up, so the others share equally; with every one
// down each is still tried, once, and then the connection fails.
func TestPickSharesADownUpstreamsTurns(t *testing.T) {
	p := testPool(3, BalanceRoundRobin)
	i := p.pick(0)
	p.failed(i, errors.New("refused")) // upstream 0 down
	count := make([]int, 3)
	for range 600 {
		i := p.pick(0)
		count[i]++
		p.connected(i)
		p.done(i)
	}
	if count[0] != 0 || count[1] != 300 || count[2] != 300 {
		t.Errorf("connections per upstream %v, want [0 300 300]", count)
	}
	for k := range 3 {
		if k != 0 {
			p.failed(k, errors.New("refused"))
			p.ups[k].live.Add(1) // failed takes back the live count pick gave
		}
	}
	var tried uint64
	var order []int
	for {
		i := p.pick(tried)
		if i < 0 {
			break
		}
		tried |= 1 << i
		order = append(order, i)
		p.failed(i, errors.New("refused"))
	}
	if len(order) != 3 {
		t.Errorf("with every upstream down a connection tried %v, want each once", order)
	}
}

// TestPickAllocatesNothing: choosing an upstream, either way, allocates
// nothing (it runs per accepted connection, in the event loops).
func TestPickAllocatesNothing(t *testing.T) {
	for _, b := range Balances {
		p := testPool(3, b)
		if avg := testing.AllocsPerRun(1000, func() {
			i := p.pick(0)
			p.connected(i)
			p.done(i)
		}); avg != 0 {
			t.Errorf("%s: %.2f allocations per pick", b, avg)
		}
	}
}

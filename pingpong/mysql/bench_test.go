package mysql

import (
	"math/rand/v2"
	"testing"

	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
	"github.com/hoplat/hoplat/responder/mock"
)

func TestClientEventAllocs(t *testing.T) {
	m := mysqltest.StartMock(t, mock.NewServer, mock.ServerConfig{User: "u", Password: "p", Tables: 3})
	for _, tc := range []WorkloadConfig{
		{Command: CommandPing},
		{Command: CommandSelect1},
		{Command: CommandSelect1, PS: true},
		{Command: CommandPointSelect},
		{Command: CommandPointSelect, PS: true},
		{Command: CommandOLTPRO, PS: true},
		{Command: CommandOLTPRO},
		{Command: CommandOLTPRW, PS: true, Tables: 3},
		{Command: CommandOLTPRW},
		{Command: CommandOLTPWO, PS: true, SkipTrx: true},
		{Command: CommandOLTPRO, InStatement: 20, NoRangeSelects: true},
	} {
		c := mysqltest.MustDial(t, Connect, "tcp", m.TCPAddr, ClientConfig{User: "u", Password: "p", DB: "sbtest"})
		_, s := mustPrepare(t, c, tc)
		rng := rand.New(rand.NewPCG(5, 6))
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := s.Event(rng); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s ps=%v: %.2f allocations per event, want 0", tc.Command, tc.PS, allocs)
		}
	}
}

func BenchmarkClientPointSelect(b *testing.B) {
	m := mysqltest.StartMock(b, mock.NewServer, mock.ServerConfig{User: "u", Password: "p"})
	c := mysqltest.MustDial(b, Connect, "tcp", m.TCPAddr, ClientConfig{User: "u", Password: "p", DB: "sbtest"})
	_, s := mustPrepare(b, c, WorkloadConfig{Command: CommandPointSelect, PS: true})
	rng := rand.New(rand.NewPCG(7, 8))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Event(rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/event")
}

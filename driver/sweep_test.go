package driver

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/stats"
)

// A sweep runs its instances together and its thread counts one after
// the other: every instance of a run is under way before any returns,
// none of the next run starts before the last of this one returned, and
// the row's mean is the instances' sum over the kept runs.
func TestSweepLockStep(t *testing.T) {
	cfg := shortConfig(t, hop.Direct)
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.Instances, cfg.Threads, cfg.Rounds, cfg.Discard = 3, []int{1, 4}, 2, 1
	var mu sync.Mutex
	running, started, finished := 0, 0, 0
	all := make(chan struct{})
	var order []string
	b := &bench{measure: func(ctx context.Context, argv, env []string, c affinity.CPUSet) (hop.Sample, error) {
		mu.Lock()
		if finished%3 != 0 || started-finished >= 3 {
			t.Errorf("an instance started with %d started and %d finished: runs overlap", started, finished)
		}
		running++
		started++
		threads := argv[indexOf(argv, "--threads")+1]
		order = append(order, threads)
		wait := all
		if running == 3 {
			close(all)
			all = make(chan struct{})
		}
		mu.Unlock()
		// Every instance of the run waits for the others to start.
		<-wait
		mu.Lock()
		running--
		finished++
		mu.Unlock()
		n, _ := strconv.Atoi(threads)
		return hop.Sample{TPS: 100 * float64(n), Latency: stats.Latency{P95: 10}}, nil
	}}
	rep, err := b.run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	nothingLeft(t, cfg.TempRoot)
	if len(order) != 3*2*2 || order[0] != "1" || order[len(order)-1] != "4" {
		t.Fatalf("runs %v", order)
	}
	sw := rep.Sweep
	if sw == nil || len(sw.Rows) != 2 || sw.Rows[0].MeanTPS != 300 || sw.Rows[1].MeanTPS != 1200 || len(sw.Rows[1].RunsTPS) != 2 {
		t.Fatalf("sweep %+v", sw)
	}
	if len(sw.Servers) != 1 || sw.Rows[1].Instances[2].Server != 0 || sw.Rows[1].Instances[2].TPS != 400 {
		t.Fatalf("servers %+v, instances %+v", sw.Servers, sw.Rows[1].Instances)
	}
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}

func TestSweepRefuses(t *testing.T) {
	cfg := shortConfig(t, hop.Direct, hop.Epoll)
	cfg.Instances = 2
	if _, err := Run(context.Background(), cfg); err == nil {
		t.Error("a sweep through epoll ran")
	}
	cfg = shortConfig(t, hop.Direct)
	cfg.Instances, cfg.Hops = 2, []int{0, 1}
	if _, err := Run(context.Background(), cfg); err == nil {
		t.Error("a sweep of chains ran")
	}
	if (Config{Instances: 1}).Sweeping() || !(Config{Instances: 2}).Sweeping() || !(Config{Backends: []Backend{{}, {}}}).Sweeping() {
		t.Error("Sweeping")
	}
}

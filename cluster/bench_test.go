package cluster

import "testing"

func TestPickMedian(t *testing.T) {
	r := Row{Runs: []Result{{TPS: 30}, {TPS: 10}, {TPS: 20}, {TPS: 40}}, runConns: [][]int64{{3}, {1}, {2}, {4}}}
	r.PickMedian()
	if r.Result.TPS != 20 || r.NodeConnections[0] != 2 {
		t.Errorf("median of 4: got %v %v, want the lower middle, 20", r.Result.TPS, r.NodeConnections)
	}
	r = Row{Runs: []Result{{TPS: 5}}, runConns: [][]int64{{9}}}
	r.PickMedian()
	if r.Result.TPS != 5 {
		t.Errorf("one run: got %v", r.Result.TPS)
	}
}

package driver

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
)

// procUse is what one process holds: its peak resident set (VmHWM, KiB),
// threads, and open file descriptors.
type procUse struct{ rssKiB, threads, fds int64 }

// readProcUse reads pid's from /proc; false where there is none to read
// (another platform, an exited process, a process on an ssh host).
func readProcUse(pid int) (procUse, bool) {
	if pid <= 0 {
		return procUse{}, false
	}
	dir := "/proc/" + strconv.Itoa(pid)
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return procUse{}, false
	}
	var u procUse
	for _, line := range bytes.Split(status, []byte("\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch string(name) {
		case "VmHWM":
			u.rssKiB = statusNumber(value)
		case "Threads":
			u.threads = statusNumber(value)
		}
	}
	if fds, err := os.ReadDir(dir + "/fd"); err == nil {
		u.fds = int64(len(fds))
	}
	return u, true
}

// statusNumber reads "   1234 kB" as 1234.
func statusNumber(v []byte) int64 {
	f := bytes.Fields(v)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[0]), 10, 64)
	return n
}

// resourceRounds keeps, per cell of a stage, the most its processes held
// at the end of any of its rounds: so that a thread sweep shows whether
// memory, threads or descriptors grow with the connections, and by how
// much per component.
type resourceRounds struct {
	topo      *Topology
	paths     []hop.Path // by cell
	serverPID int        // a backend's that hopbench did not start, 0 when unknown
	cells     []hop.Resources
	seen      []bool
}

func newResourceRounds(cells []Cell, topo *Topology, serverPID int) *resourceRounds {
	r := &resourceRounds{topo: topo, serverPID: serverPID,
		cells: make([]hop.Resources, len(cells)), seen: make([]bool, len(cells))}
	for _, c := range cells {
		r.paths = append(r.paths, c.Path)
	}
	return r
}

// begin has nothing to read: peaks are read as a round ends.
func (r *resourceRounds) begin(context.Context, int, int) {}

// end records cell's processes after one of its rounds, unless the run was
// cancelled in it: the client's peak from the round's sample, the relays'
// and the server's from /proc while they still run.
func (r *resourceRounds) end(ctx context.Context, cell, _ int, smp hop.Sample) error {
	if ctx.Err() == nil {
		r.observe(cell, r.paths[cell], r.topo, r.serverPID, smp)
	}
	return nil
}

// perRequest sets each series' Resources; peaks are per round, not per
// request, and every observed round counts.
func (r *resourceRounds) perRequest(series []CellRounds, _ int, _ time.Duration) {
	for i := range series {
		series[i].Resources = r.of(i)
	}
}

// observe keeps the peaks of cell's processes after one of its rounds:
// the client's from smp, the relays' of p and the server's from /proc;
// serverPID is a backend's that hopbench did not start, 0 when unknown.
func (r *resourceRounds) observe(cell int, p hop.Path, topo *Topology, serverPID int, smp hop.Sample) {
	res := &r.cells[cell]
	r.seen[cell] = true
	res.ClientRSSKiB = max(res.ClientRSSKiB, smp.MaxRSSKiB)
	var relay procUse
	for _, proc := range topo.relayProcs[p] {
		if proc.Remote() {
			continue
		}
		if u, ok := readProcUse(proc.PID()); ok {
			relay.rssKiB += u.rssKiB
			relay.threads += u.threads
			relay.fds += u.fds
		}
	}
	res.RelayRSSKiB = max(res.RelayRSSKiB, relay.rssKiB)
	res.RelayThreads = max(res.RelayThreads, relay.threads)
	res.RelayFDs = max(res.RelayFDs, relay.fds)
	if topo.server != nil && !topo.server.Remote() {
		serverPID = topo.server.PID()
	}
	if u, ok := readProcUse(serverPID); ok {
		res.ServerRSSKiB = max(res.ServerRSSKiB, u.rssKiB)
		res.ServerThreads = max(res.ServerThreads, u.threads)
		res.ServerFDs = max(res.ServerFDs, u.fds)
	}
}

// of is cell's figures, nil when no round of it was observed.
func (r *resourceRounds) of(cell int) *hop.Resources {
	if !r.seen[cell] {
		return nil
	}
	res := r.cells[cell]
	return &res
}

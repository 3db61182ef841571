package driver

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/sockets"
)

// ServerExternal is the server's placement when hopbench cannot see where
// it runs: a backend on another machine, or one whose process it may not
// read.
const ServerExternal = "external"

// serverPlace is where a backend that hopbench did not start runs, read
// back from its process when it is on this machine. A regime places the
// components hopbench starts; this one it only reports, unless
// Config.BackendCPUs pins it for the run.
type serverPlace struct {
	pid    int    // 0 when not found here
	comm   string // its command name, for the report
	cpus   string // the CPUs it may run on, or ServerExternal
	pinned bool   // BackendCPUs moved it; prev is its mask before
	prev   affinity.CPUSet
	why    string // how the placement was found, or why it was not
}

// placeServer finds the process serving b on this machine and reads (or,
// with pin non-empty, sets) its CPUs. A backend on another host, or one no
// readable process serves, is ServerExternal; pinning one is an error,
// since it would silently not happen.
func placeServer(b Backend, pin affinity.CPUSet) (serverPlace, error) {
	var addrs []sockets.Addr
	for _, a := range []*sockets.Addr{b.TCP, b.UNIX} {
		if a != nil && a.IsLocal() {
			addrs = append(addrs, *a)
		}
	}
	sp := serverPlace{cpus: ServerExternal, why: "not on this machine's loopback"}
	var lookErr error
	for _, a := range addrs {
		pid, err := sockets.ListenerPID(a)
		if err != nil {
			lookErr = err
			continue
		}
		sp.pid, sp.why = pid, "process "+strconv.Itoa(pid)+" listens on "+a.String()
		break
	}
	if sp.pid == 0 {
		if lookErr != nil {
			sp.why = lookErr.Error()
		}
		if pin.Len() > 0 {
			return sp, fmt.Errorf("driver: --backend-cpus %s: cannot pin %s: %s", pin, b, sp.why)
		}
		return sp, nil
	}
	sp.comm, _ = affinity.ProcessName(sp.pid) // best effort: the PID names it too
	if pin.Len() > 0 {
		prev, err := affinity.PinProcess(sp.pid, pin)
		if err != nil {
			return sp, fmt.Errorf("driver: --backend-cpus: %w", err)
		}
		sp.pinned, sp.prev = true, prev
	}
	cpus, err := affinity.ProcessCPUs(sp.pid)
	if err != nil {
		sp.restore()
		return serverPlace{cpus: ServerExternal, why: err.Error()}, nil
	}
	sp.cpus = cpus.String()
	return sp, nil
}

// restore puts a pinned backend's mask back as it was before the run.
func (sp *serverPlace) restore() error {
	if !sp.pinned {
		return nil
	}
	sp.pinned = false
	if _, err := affinity.PinProcess(sp.pid, sp.prev); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("driver: put the backend's CPUs back to %s: %w", sp.prev, err)
	}
	return nil
}

// place is where the server is, for a regime line: the regime did not
// place it.
func (sp serverPlace) place() *hop.ServerPlace {
	if sp.pid == 0 {
		return &hop.ServerPlace{External: true, Why: sp.why}
	}
	return &hop.ServerPlace{PID: sp.pid, Comm: sp.comm, CPUs: sp.cpus, Pinned: sp.pinned}
}

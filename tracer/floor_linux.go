package tracer

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
)

// Floor is a set of programs on the tracer's own tracepoints that return
// at once: attached, every event the tracer would record costs the
// kernel's dispatch of a BPF program and nothing more, the floor under any
// tracer of these events. A run measures it on a path's round trips
// (floor_pct) to read the tracer's overhead_pct against it. It records
// nothing, and runs whether or not the tracer is started.
type Floor struct{ h *hooks }

// Floor loads the floor's programs for the tracepoints t uses.
func (t *Tracer) Floor() (*Floor, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objs == nil {
		return nil, errClosed
	}
	h, err := newHooks(t.objs.tracepoints, returnAtOnce)
	if err != nil {
		return nil, fmt.Errorf("tracer: floor: %w", err)
	}
	return &Floor{h: h}, nil
}

// Attach attaches every program; Detach takes them off again.
func (f *Floor) Attach() error {
	if err := f.h.attachAll(); err != nil {
		return fmt.Errorf("tracer: floor: %w", err)
	}
	return nil
}

// Detach takes the programs off their tracepoints; it is idempotent.
func (f *Floor) Detach() { f.h.detach() }

// Close detaches and releases the programs; it is idempotent.
func (f *Floor) Close() error {
	f.h.close()
	return nil
}

// hooks are programs on tracepoints that do only body: returnAtOnce prices
// the kernel's dispatch alone; the tests set others beside it (a clock
// read, a counter) to say what the tracer's own work adds.
type hooks struct {
	progs []*ebpf.Program
	links []link.Link
}

var returnAtOnce = asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}

// newHooks loads body for each tp_btf tracepoint.
func newHooks(tracepoints []string, body asm.Instructions) (*hooks, error) {
	h := &hooks{}
	for _, tp := range tracepoints {
		p, err := ebpf.NewProgram(&ebpf.ProgramSpec{
			Name: "hoplat_hook", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, AttachTo: tp,
			Instructions: body, License: "GPL",
		})
		if err != nil {
			h.close()
			return nil, fmt.Errorf("load tp_btf/%s: %w", tp, err)
		}
		h.progs = append(h.progs, p)
	}
	return h, nil
}

// attachAll attaches every program, as Tracer.Start does; on an error
// none stays attached.
func (h *hooks) attachAll() error {
	if len(h.links) > 0 {
		return errors.New("already attached")
	}
	links, _, err := attachAll(h.progs)
	if err != nil {
		return err
	}
	h.links = links
	return nil
}

func (h *hooks) detach() {
	detachAll(h.links)
	h.links = nil
}

func (h *hooks) close() {
	h.detach()
	for _, p := range h.progs {
		p.Close()
	}
	h.progs = nil
}

package tracer

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
)

// hooks are programs on the tracer's own tracepoints that do only body:
// returnAtOnce prices the kernel's dispatch alone, the floor under any
// tracer of these events; clockOnly adds the one clock read every record
// needs. Set against the tracer's whole cost, they say what the tracer's
// own work adds.
type hooks struct {
	progs []*ebpf.Program
	links []link.Link
}

var (
	returnAtOnce = asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
	clockOnly    = asm.Instructions{asm.FnKtimeGetNs.Call(), asm.Mov.Imm(asm.R0, 0), asm.Return()}
)

// loadHooks loads body for each tracepoint, released when the test ends.
func loadHooks(tb testing.TB, tracepoints []string, body asm.Instructions) *hooks {
	tb.Helper()
	h := &hooks{}
	tb.Cleanup(h.close)
	for _, tp := range tracepoints {
		p, err := ebpf.NewProgram(&ebpf.ProgramSpec{
			Name: "hoplat_hook", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, AttachTo: tp,
			Instructions: body, License: "GPL",
		})
		if err != nil {
			tb.Fatalf("load tp_btf/%s: %v", tp, err)
		}
		h.progs = append(h.progs, p)
	}
	return h
}

// attach attaches every program, as Tracer.Start does.
func (h *hooks) attach(tb testing.TB) {
	tb.Helper()
	for _, p := range h.progs {
		l, err := link.AttachTracing(link.TracingOptions{Program: p, AttachType: ebpf.AttachTraceRawTp})
		if err != nil {
			h.detach()
			tb.Fatal(err)
		}
		h.links = append(h.links, l)
	}
}

func (h *hooks) detach() {
	for _, l := range h.links {
		l.Close()
	}
	h.links = nil
}

func (h *hooks) close() {
	h.detach()
	for _, p := range h.progs {
		p.Close()
	}
	h.progs = nil
}

// TestHooks: the programs load on every tracepoint the tracer uses, and
// a hook runs while attached, and only then.
func TestHooks(t *testing.T) {
	tr := openOrSkip(t, Config{})
	if len(tr.objs.tracepoints) != len(tr.objs.progs) {
		t.Fatalf("%d tracepoints for %d programs", len(tr.objs.tracepoints), len(tr.objs.progs))
	}
	h := loadHooks(t, tr.objs.tracepoints, returnAtOnce)
	body, counted := countRuns(t)
	counting := loadHooks(t, []string{"sys_enter"}, body)
	h.attach(t)
	counting.attach(t)
	before := counted()
	fastestGetppid(1, 100)
	during := counted() - before
	counting.detach()
	h.detach()
	before = counted()
	fastestGetppid(1, 100)
	if after := counted() - before; during < 100 || after != 0 {
		t.Errorf("100 getppid calls: sys_enter ran %d times attached, %d detached; want >= 100 and 0", during, after)
	}
}

// countRuns is a body that counts its runs, and the count.
func countRuns(t *testing.T) (asm.Instructions, func() uint64) {
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	load := asm.LoadMapPtr(asm.R1, 0)
	if err := load.AssociateMap(m); err != nil {
		t.Fatal(err)
	}
	body := asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		load,
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
	return body, func() uint64 {
		var n uint64
		if err := m.Lookup(uint32(0), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

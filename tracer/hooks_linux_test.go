package tracer

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// clockOnly adds to returnAtOnce the one clock read every record needs:
// set against the tracer's whole cost, the two say what the tracer's own
// work adds.
var clockOnly = asm.Instructions{asm.FnKtimeGetNs.Call(), asm.Mov.Imm(asm.R0, 0), asm.Return()}

// loadHooks loads body for each tracepoint, released when the test ends.
func loadHooks(tb testing.TB, tracepoints []string, body asm.Instructions) *hooks {
	tb.Helper()
	h, err := newHooks(tracepoints, body)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.close)
	return h
}

// attach attaches every program, as Tracer.Start does.
func (h *hooks) attach(tb testing.TB) {
	tb.Helper()
	if err := h.attachAll(); err != nil {
		tb.Fatal(err)
	}
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

// TestFloor: the floor loads a program for each of the tracer's
// tracepoints, attaches them all once, and detaches and closes twice
// without harm.
func TestFloor(t *testing.T) {
	tr := openOrSkip(t, Config{})
	f, err := tr.Floor()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, want := len(f.h.progs), len(tr.objs.tracepoints); got != want {
		t.Fatalf("%d programs for %d tracepoints", got, want)
	}
	if err := f.Attach(); err != nil {
		t.Fatal(err)
	}
	if err := f.Attach(); err == nil {
		t.Error("a second Attach succeeded, want an error")
	}
	if len(f.h.links) != len(f.h.progs) {
		t.Errorf("%d links for %d programs", len(f.h.links), len(f.h.progs))
	}
	f.Detach()
	f.Detach()
	if len(f.h.links) != 0 {
		t.Errorf("%d links after Detach", len(f.h.links))
	}
	f.Close()
	if err := f.Close(); err != nil {
		t.Error(err)
	}
}

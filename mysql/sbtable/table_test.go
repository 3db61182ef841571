package sbtable

import (
	"regexp"
	"testing"
)

func TestValuesHaveSysbenchShape(t *testing.T) {
	tb := Table{N: 2, Size: 1000, Seed: 7}
	cShape := regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){9}$`)
	padShape := regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){4}$`)
	seen := map[int64]bool{}
	for id := int64(1); id <= tb.Size; id++ {
		k := tb.K(id)
		if k < 1 || k > tb.Size {
			t.Fatalf("k(%d) = %d, want 1..%d", id, k, tb.Size)
		}
		seen[k] = true
		c, pad := tb.AppendC(nil, id), tb.AppendPad(nil, id)
		if !cShape.Match(c) || !padShape.Match(pad) || len(c) != CLen || len(pad) != PadLen {
			t.Fatalf("row %d: c %q pad %q: not sysbench's shape", id, c, pad)
		}
		if p := tb.Prefix(id, C); string(c[:11]) != pad11(p) {
			t.Fatalf("row %d: prefix %d, c starts %q", id, p, c[:11])
		}
	}
	if len(seen) < 500 {
		t.Errorf("k takes %d distinct values over 1000 rows: not spread", len(seen))
	}
}

func pad11(v uint64) string {
	b := make([]byte, 11)
	for i := 10; i >= 0; i-- {
		b[i] = '0' + byte(v%10)
		v /= 10
	}
	return string(b)
}

func TestDeterministicAndDistinctPerSeedAndTable(t *testing.T) {
	a, b := Table{N: 1, Size: 100, Seed: 1}, Table{N: 1, Size: 100, Seed: 1}
	if string(a.AppendC(nil, 5)) != string(b.AppendC(nil, 5)) || a.K(5) != b.K(5) {
		t.Fatal("same seed, table and id give different rows")
	}
	for _, o := range []Table{{N: 2, Size: 100, Seed: 1}, {N: 1, Size: 100, Seed: 2}} {
		if string(a.AppendC(nil, 5)) == string(o.AppendC(nil, 5)) {
			t.Errorf("%+v and %+v share row 5's c", a, o)
		}
	}
	if string(a.AppendC(nil, 5)) == string(a.AppendC(nil, 6)) {
		t.Error("rows 5 and 6 share c")
	}
}

func TestLookup(t *testing.T) {
	for in, want := range map[string]Column{"id": ID, "K": K, "c": C, "PaD": Pad} {
		if c, ok := Lookup([]byte(in)); !ok || c != want {
			t.Errorf("Lookup(%q) = %v, %v", in, c, ok)
		}
	}
	for _, in := range []string{"", "i", "ids", "padd", "kk"} {
		if _, ok := Lookup([]byte(in)); ok {
			t.Errorf("Lookup(%q) found a column", in)
		}
	}
}

func TestAppendAllocatesNothing(t *testing.T) {
	tb := Table{N: 1, Size: 1 << 20, Seed: 3}
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() {
		buf = tb.AppendText(tb.AppendText(buf[:0], 77, C), 77, K)
	}); n != 0 {
		t.Errorf("%.1f allocations per row", n)
	}
}

// BenchmarkAppendC is the cost of one row's c, computed on demand.
func BenchmarkAppendC(b *testing.B) {
	tb := Table{N: 1, Size: 1 << 20, Seed: 3}
	buf := make([]byte, 0, CLen)
	b.ReportAllocs()
	id := int64(0)
	for b.Loop() {
		id++
		buf = tb.AppendC(buf[:0], id)
	}
}

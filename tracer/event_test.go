package tracer

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestDecode(t *testing.T) {
	want := Event{Time: 1e9, Arg: 1, Tid: 2, Tgid: 3, Tid2: 4, Tgid2: 5, CPU: 6, Kind: KindSysEnter, Arg2: 7}
	b := make([]byte, EventSize)
	want.Encode(b)
	tests := []struct {
		name string
		rec  []byte
		err  error
	}{
		{"record", b, nil},
		{"record with tail", append(append([]byte{}, b...), 0, 0, 0, 0), nil},
		{"short", b[:EventSize-1], ErrShortRecord},
		{"empty", nil, ErrShortRecord},
		{"kind zero", func() []byte { c := bytes.Clone(b); c[offKind] = 0; return c }(), ErrBadKind},
		{"kind past the end", func() []byte { c := bytes.Clone(b); c[offKind] = byte(kindEnd); return c }(), ErrBadKind},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e Event
			err := e.Decode(tc.rec)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Decode: %v, want %v", err, tc.err)
			}
			if err == nil && e != want {
				t.Errorf("Decode = %+v, want %+v", e, want)
			}
		})
	}
}

func TestDecodeAllocs(t *testing.T) {
	b := make([]byte, EventSize)
	(&Event{Kind: KindSwitch}).Encode(b)
	var e Event
	if n := testing.AllocsPerRun(1000, func() { e.Decode(b) }); n != 0 {
		t.Errorf("Decode allocates %v times per record", n)
	}
}

// FuzzDecode: a record decodes or is refused, and one that decodes encodes
// back to the same bytes.
func FuzzDecode(f *testing.F) {
	b := make([]byte, EventSize)
	(&Event{Time: 5, Kind: KindIdle, Arg: IdleExit}).Encode(b)
	f.Add(b)
	f.Add(b[:10])
	f.Fuzz(func(t *testing.T, rec []byte) {
		var e Event
		if err := e.Decode(rec); err != nil {
			return
		}
		out := make([]byte, EventSize)
		e.Encode(out)
		if !bytes.Equal(out, rec[:EventSize]) {
			t.Fatalf("Encode(Decode(%x)) = %x", rec[:EventSize], out)
		}
	})
}

// FuzzAssemble: whatever the events, Assemble does not fail, and each
// request's segments are contiguous and partition its round trip.
func FuzzAssemble(f *testing.F) {
	seed := func(ev []Event) []byte {
		var b []byte
		for i := range ev {
			rec := make([]byte, EventSize)
			ev[i].Encode(rec)
			b = append(b, rec...)
		}
		return b
	}
	f.Add(seed(directPacked(4)))
	f.Add(seed(relaySpread(4)))
	f.Fuzz(func(t *testing.T, b []byte) {
		var events []Event
		for len(b) >= EventSize {
			var e Event
			if e.Decode(b[:EventSize]) == nil {
				// Keep the ids few, so the events meet.
				e.Tid, e.Tgid, e.Tid2, e.Tgid2 = e.Tid%4*100, e.Tid%4*100, e.Tid2%4*100, e.Tid2%4*100
				e.CPU %= 3
				events = append(events, e)
			}
			b = b[EventSize:]
		}
		for _, r := range Assemble(Config{Components: components}, events, 3) {
			at := r.Start
			for _, g := range r.Segments {
				if g.Start != at || g.End <= g.Start || g.Duration() < 0 {
					t.Fatalf("request [%d, %d]: segment %+v after %d", r.Start, r.End, g, at)
				}
				at = g.End
			}
			if at != r.End || r.Sum()+r.Tracer() != r.RTT() {
				t.Fatalf("request [%d, %d]: segments end at %d, sum %v + %v", r.Start, r.End, at, r.Sum(), r.Tracer())
			}
		}
	})
}

func TestSplit(t *testing.T) {
	whole := Event{
		Time: 5000, Arg: 64, Arg2: 4200, Tid: 7, Tgid: 3,
		Tid2: 1<<16 | 44, Tgid2: 0xffffffff, CPU: 0, Kind: KindSyscall,
	}
	enter, exit, ok := whole.Split()
	if !ok {
		t.Fatal("a KindSyscall record did not split")
	}
	wantEnter := Event{Time: 4200, Arg: 44, Arg2: math.MaxUint64, Tid: 7, Tgid: 3, CPU: 1, Kind: KindSysEnter}
	wantExit := Event{Time: 5000, Arg: 64, Tid: 7, Tgid: 3, CPU: 0, Kind: KindSysExit}
	if enter != wantEnter {
		t.Errorf("enter %+v, want %+v (fd -1 sign-extended, CPU from the high half)", enter, wantEnter)
	}
	if exit != wantExit {
		t.Errorf("exit %+v, want %+v", exit, wantExit)
	}
	irq := Event{Time: 900, Arg: 3, Arg2: 700, Tid: 7, Tgid: 3, CPU: 1, Kind: KindSoftirq}
	enter, exit, ok = irq.Split()
	if !ok || enter != (Event{Time: 700, Arg: 3, Tid: 7, Tgid: 3, CPU: 1, Kind: KindSoftirqEntry}) ||
		exit != (Event{Time: 900, Arg: 3, Tid: 7, Tgid: 3, CPU: 1, Kind: KindSoftirqExit}) {
		t.Errorf("softirq split into %+v, %+v (%v)", enter, exit, ok)
	}
	for k := KindSwitch; k < kindEnd; k++ {
		if k == KindSyscall || k == KindSoftirq {
			continue
		}
		if _, _, ok := (&Event{Kind: k}).Split(); ok {
			t.Errorf("%v split", k)
		}
	}
}

package affinity

import (
	"errors"
	"os"
	"testing"
	"testing/fstest"
)

func TestReadCPULayoutTwoSocket(t *testing.T) {
	// Two sockets, two cores each, two hyperthreads per core, numbered the
	// way Intel machines number them: cpu4 is cpu0's sibling.
	topo, err := readCPULayout(os.DirFS("testdata/two-socket"))
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.CPUs) != 8 {
		t.Fatalf("read %d CPUs, want 8", len(topo.CPUs))
	}
	c6, ok := topo.CPU(6)
	want := CPU{ID: 6, Core: 0, Package: 1, Node: 1, Threads: NewCPUSet(2, 6)}
	if !ok || c6.ID != want.ID || c6.Core != want.Core || c6.Package != want.Package || c6.Node != want.Node || !c6.Threads.Equal(want.Threads) {
		t.Errorf("CPU(6) = %+v, %v; want %+v", c6, ok, want)
	}
	tests := []struct {
		a, b int
		want Relation
	}{
		{0, 0, SameCPU},
		{0, 4, SMTSibling},
		{7, 3, SMTSibling},
		{0, 1, OtherCore},
		{0, 5, OtherCore},
		{0, 2, OtherNode},
		{5, 6, OtherNode},
	}
	for _, tt := range tests {
		got, err := topo.Relation(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("Relation(%d, %d) = %v, %v; want %v", tt.a, tt.b, got, err, tt.want)
		}
	}
	if _, err := topo.Relation(0, 8); !errors.Is(err, ErrNotOnline) {
		t.Errorf("Relation(0, 8) error %v, want ErrNotOnline", err)
	}
}

func TestReadCPULayoutWithoutNUMA(t *testing.T) {
	// A kernel without CONFIG_NUMA has no node directory: two sockets are
	// then told apart by package alone.
	topo, err := readCPULayout(os.DirFS("testdata/no-numa"))
	if err != nil {
		t.Fatal(err)
	}
	if rel, err := topo.Relation(0, 1); err != nil || rel != OtherPackage {
		t.Errorf("Relation(0, 1) = %v, %v; want %v", rel, err, OtherPackage)
	}
}

func TestReadCPULayoutBroken(t *testing.T) {
	tests := map[string]fstest.MapFS{
		"no online file": {},
		"bad online":     {"cpu/online": {Data: []byte("0-x\n")}},
		"missing core_id": {
			"cpu/online": {Data: []byte("0\n")},
		},
		"bad core_id": {
			"cpu/online":                             {Data: []byte("0\n")},
			"cpu/cpu0/topology/core_id":              {Data: []byte("zero\n")},
			"cpu/cpu0/topology/physical_package_id":  {Data: []byte("0\n")},
			"cpu/cpu0/topology/thread_siblings_list": {Data: []byte("0\n")},
		},
	}
	for name, fsys := range tests {
		if _, err := readCPULayout(fsys); err == nil {
			t.Errorf("%s: readCPULayout succeeded", name)
		}
	}
}

func TestReadCPULayoutMachine(t *testing.T) {
	topo, err := ReadCPULayout()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	online, err := OnlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.CPUs) != online.Len() {
		t.Fatalf("topology has %d CPUs, %s are online", len(topo.CPUs), online)
	}
	for _, c := range topo.CPUs {
		if !c.Threads.Contains(c.ID) {
			t.Errorf("CPU %d is not among its own thread siblings %s", c.ID, c.Threads)
		}
		for _, d := range topo.CPUs {
			rel, err := topo.Relation(c.ID, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if back, _ := topo.Relation(d.ID, c.ID); back != rel {
				t.Errorf("Relation(%d, %d) = %v but Relation(%d, %d) = %v", c.ID, d.ID, rel, d.ID, c.ID, back)
			}
			if (rel == SameCPU) != (c.ID == d.ID) {
				t.Errorf("Relation(%d, %d) = %v", c.ID, d.ID, rel)
			}
		}
	}
}

func TestRelationString(t *testing.T) {
	for r, want := range map[Relation]string{SameCPU: "same-cpu", SMTSibling: "smt-sibling", OtherCore: "other-core", OtherPackage: "other-package", OtherNode: "other-node", 9: "Relation(9)"} {
		if r.String() != want {
			t.Errorf("Relation %d String = %q, want %q", int(r), r, want)
		}
	}
}

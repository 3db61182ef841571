package affinity

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// CPU is one logical CPU as sysfs describes it.
type CPU struct {
	ID      int
	Core    int    // core_id: unique only within a package
	Package int    // physical_package_id: the socket
	Node    int    // NUMA node; 0 on a kernel without NUMA, which treats memory as uniform
	Threads CPUSet // thread_siblings_list: the CPUs sharing this core, itself included
}

// CPULayout is the layout of the online CPUs: sysfs's CPU topology, named
// apart from the topology file (hosts.TopologyFile) and the driver's running
// topology (driver.Topology), which are other things.
type CPULayout struct {
	CPUs []CPU // ascending by ID
}

// Relation says how close two CPUs are, from sharing everything to sharing
// only the memory bus.
type Relation int

const (
	SameCPU      Relation = iota // one logical CPU
	SMTSibling                   // hyperthreads of one core: shared L1/L2 and execution units
	OtherCore                    // other core, same package and node: shared LLC at most
	OtherPackage                 // other socket, same NUMA node (NUMA off, or memory interleaved)
	OtherNode                    // other NUMA node: memory and cache lines cross the interconnect
)

var relationNames = [...]string{"same-cpu", "smt-sibling", "other-core", "other-package", "other-node"}

func (r Relation) String() string {
	if r < 0 || int(r) >= len(relationNames) {
		return "Relation(" + strconv.Itoa(int(r)) + ")"
	}
	return relationNames[r]
}

// CPU returns what the topology knows of an online CPU.
func (t CPULayout) CPU(id int) (CPU, bool) {
	i, ok := slices.BinarySearchFunc(t.CPUs, id, func(c CPU, id int) int { return c.ID - id })
	if !ok {
		return CPU{}, false
	}
	return t.CPUs[i], true
}

// Relation reports how CPUs a and b relate; it fails if either is not online.
func (t CPULayout) Relation(a, b int) (Relation, error) {
	ca, okA := t.CPU(a)
	cb, okB := t.CPU(b)
	switch {
	case !okA:
		return 0, fmt.Errorf("affinity: relation of CPUs %d and %d: CPU %d %w", a, b, a, ErrNotOnline)
	case !okB:
		return 0, fmt.Errorf("affinity: relation of CPUs %d and %d: CPU %d %w", a, b, b, ErrNotOnline)
	case a == b:
		return SameCPU, nil
	case ca.Threads.Contains(b):
		return SMTSibling, nil
	case ca.Node != cb.Node:
		return OtherNode, nil
	case ca.Package != cb.Package:
		return OtherPackage, nil
	}
	return OtherCore, nil
}

// readCPULayout reads the tree under /sys/devices/system, given as fsys
// so tests can supply a machine they do not have.
func readCPULayout(fsys fs.FS) (CPULayout, error) {
	online, err := readOnline(fsys)
	if err != nil {
		return CPULayout{}, err
	}
	nodeOf, err := readNodes(fsys)
	if err != nil {
		return CPULayout{}, err
	}
	var t CPULayout
	for _, id := range online.cpus {
		dir := fmt.Sprintf("cpu/cpu%d/topology", id)
		c := CPU{ID: id}
		if c.Core, err = readInt(fsys, dir+"/core_id"); err != nil {
			return CPULayout{}, err
		}
		if c.Package, err = readInt(fsys, dir+"/physical_package_id"); err != nil {
			return CPULayout{}, err
		}
		if c.Threads, err = readCPUList(fsys, dir+"/thread_siblings_list"); err != nil {
			return CPULayout{}, err
		}
		c.Node = nodeOf[id]
		t.CPUs = append(t.CPUs, c)
	}
	return t, nil
}

func readOnline(fsys fs.FS) (CPUSet, error) {
	return readCPUList(fsys, "cpu/online")
}

// readNodes maps each CPU to its NUMA node. A kernel built without
// CONFIG_NUMA has no node directory; that yields an empty map.
func readNodes(fsys fs.FS) (map[int]int, error) {
	lists, err := fs.Glob(fsys, "node/node*/cpulist")
	if err != nil {
		return nil, err
	}
	nodeOf := make(map[int]int)
	for _, name := range lists {
		n, err := strconv.Atoi(strings.TrimPrefix(path.Base(path.Dir(name)), "node"))
		if err != nil {
			continue // not a node directory
		}
		cpus, err := readCPUList(fsys, name)
		if err != nil {
			return nil, err
		}
		for _, cpu := range cpus.cpus {
			nodeOf[cpu] = n
		}
	}
	return nodeOf, nil
}

func readInt(fsys fs.FS, name string) (int, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, fmt.Errorf("affinity: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("affinity: read %s: %w", name, err)
	}
	return n, nil
}

// readCPUList reads a kernel cpulist file. A memory-only NUMA node has an
// empty cpulist, hence no "empty list" error here.
func readCPUList(fsys fs.FS, name string) (CPUSet, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return CPUSet{}, fmt.Errorf("affinity: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return CPUSet{}, nil
	}
	set, err := parseList(s, nil)
	if err != nil {
		return CPUSet{}, fmt.Errorf("affinity: read %s: %q: %w", name, s, err)
	}
	return set, nil
}

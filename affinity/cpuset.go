package affinity

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/internal/list"
)

// ErrNotOnline is wrapped by errors that name a CPU the machine does not
// have online.
var ErrNotOnline = errors.New("not online")

// CPUSet is an immutable set of CPU numbers. The zero value is the empty set.
type CPUSet struct {
	cpus []int // sorted, unique, non-negative
}

// NewCPUSet returns the set of the given CPUs; order and duplicates do not
// matter. It panics on a negative CPU number, which is a programming error.
func NewCPUSet(cpus ...int) CPUSet {
	s := slices.Clone(cpus)
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) > 0 && s[0] < 0 {
		panic(fmt.Sprintf("affinity: negative CPU %d", s[0]))
	}
	return CPUSet{cpus: s}
}

// CPUs returns the CPU numbers in ascending order.
func (s CPUSet) CPUs() []int { return slices.Clone(s.cpus) }

// Len returns the number of CPUs in s.
func (s CPUSet) Len() int { return len(s.cpus) }

// Contains reports whether cpu is in s.
func (s CPUSet) Contains(cpu int) bool {
	_, ok := slices.BinarySearch(s.cpus, cpu)
	return ok
}

// Without returns the CPUs of s that none of others holds.
func (s CPUSet) Without(others ...CPUSet) CPUSet {
	var keep []int
	for _, c := range s.cpus {
		if !slices.ContainsFunc(others, func(o CPUSet) bool { return o.Contains(c) }) {
			keep = append(keep, c)
		}
	}
	return CPUSet{cpus: keep}
}

// Equal reports whether s and o hold the same CPUs.
func (s CPUSet) Equal(o CPUSet) bool { return slices.Equal(s.cpus, o.cpus) }

// String returns the kernel's cpulist form ("0-3,8"), which ParseList reads
// back. The empty set is "".
func (s CPUSet) String() string {
	var b strings.Builder
	for i := 0; i < len(s.cpus); {
		j := i
		for j+1 < len(s.cpus) && s.cpus[j+1] == s.cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s.cpus[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s.cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// MarshalText writes the String form, so reports carry "0-3" rather than {}.
func (s CPUSet) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseList parses a CPU list against the CPUs online on this machine; see
// ParseListFor for the syntax.
func ParseList(s string) (CPUSet, error) {
	online, err := OnlineCPUs()
	if err != nil {
		return CPUSet{}, &list.Error{List: s, Err: fmt.Errorf("reading the CPUs online: %w", err)}
	}
	return ParseListFor(s, online)
}

// ParseCPUs parses a CPU list of online CPUs, as ParseList does, into the
// CPU numbers in ascending order: the form the --cpus flags of the
// binaries hand to their configs.
func ParseCPUs(s string) ([]int, error) {
	set, err := ParseList(s)
	if err != nil {
		return nil, err
	}
	return set.CPUs(), nil
}

// ParseListFor parses a CPU list and rejects CPUs not in online. A list is
// "all" (every online CPU) or elements separated by commas or, as RonDB
// writes them, semicolons (either or both, as internal/list reads every
// LIST); an element is a CPU number or an inclusive range "lo-hi". Spaces
// around elements and numbers are ignored: " 0 - 3 ; 8". An error is a
// *list.Error naming the list as given, for the caller to put the flag or
// key before.
func ParseListFor(s string, online CPUSet) (CPUSet, error) {
	set, err := parseList(s, &online)
	if err != nil {
		return CPUSet{}, &list.Error{List: s, Err: err}
	}
	return set, nil
}

// parseList parses s; a nil online trusts every CPU number, for lists the
// kernel itself wrote. The syntax is internal/list's, with "all" besides.
// Its errors say what is wrong, not the list: each caller names that.
func parseList(s string, online *CPUSet) (CPUSet, error) {
	if strings.TrimSpace(s) == "all" {
		if online == nil || online.Len() == 0 {
			return CPUSet{}, errors.New("all: no CPU online")
		}
		return *online, nil
	}
	elems, err := list.Items(s)
	if err != nil {
		return CPUSet{}, errors.Unwrap(err) // the reason, without the list
	}
	var cpus []int
	for _, elem := range elems {
		lo, hi, err := list.Range(elem, "CPU")
		if err != nil {
			return CPUSet{}, err
		}
		for cpu := lo; cpu <= hi; cpu++ {
			// Checking each CPU before appending bounds the work by the
			// online set, however wide the range asked for.
			if online != nil && !online.Contains(cpu) {
				return CPUSet{}, fmt.Errorf("CPU %d %w (online %s)", cpu, ErrNotOnline, *online)
			}
			cpus = append(cpus, cpu)
		}
	}
	return NewCPUSet(cpus...), nil
}

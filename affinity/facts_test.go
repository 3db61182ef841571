package affinity

import (
	"errors"
	"strconv"
	"testing"
	"testing/fstest"
)

// twoCoreSMT is a sysfs tree of one package with two cores of two threads
// (cpu2 is cpu0's sibling), to which each test adds the files it is about.
func twoCoreSMT(extra map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{"cpu/online": {Data: []byte("0-3\n")}}
	siblings := []string{"0,2", "1,3", "0,2", "1,3"}
	for cpu, s := range siblings {
		dir := "cpu/cpu" + strconv.Itoa(cpu) + "/topology/"
		fsys[dir+"core_id"] = &fstest.MapFile{Data: []byte(strconv.Itoa(cpu%2) + "\n")}
		fsys[dir+"physical_package_id"] = &fstest.MapFile{Data: []byte("0\n")}
		fsys[dir+"thread_siblings_list"] = &fstest.MapFile{Data: []byte(s + "\n")}
	}
	for name, data := range extra {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestReadCPUFactsGuest(t *testing.T) {
	// A KVM guest: haltpoll idles it, no cpufreq, SMT reported off though
	// the topology files exist.
	f, err := readCPUFacts(twoCoreSMT(map[string]string{
		"cpu/cpuidle/current_governor": "haltpoll\n",
		"cpu/cpuidle/current_driver":   "haltpoll\n",
		"cpu/smt/active":               "0\n",
		"cpu/isolated":                 "\n",
		"cpu/nohz_full":                "(null)\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if f.IdleGovernor != "haltpoll" || f.IdleDriver != "haltpoll" || f.FreqGovernor != "" || f.SMT {
		t.Errorf("facts %+v", f)
	}
	if f.Isolated.Len() != 0 || f.NoHZFull.Len() != 0 {
		t.Errorf("isolated %v nohz_full %v, want none", f.Isolated, f.NoHZFull)
	}
	if len(f.Siblings) != 2 || f.Siblings[0].String() != "0,2" || f.Siblings[1].String() != "1,3" {
		t.Errorf("siblings %v, want [0,2 1,3]", f.Siblings)
	}
}

func TestReadCPUFactsHost(t *testing.T) {
	// An old kernel: no smt/active, the governor under its _ro name.
	f, err := readCPUFacts(twoCoreSMT(map[string]string{
		"cpu/cpuidle/current_governor_ro":      "menu\n",
		"cpu/cpuidle/current_driver":           "intel_idle\n",
		"cpu/cpufreq/policy0/scaling_governor": "performance\n",
		"cpu/cpufreq/policy0/scaling_driver":   "intel_pstate\n",
		"cpu/isolated":                         "2-3\n",
		"cpu/nohz_full":                        "3\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if f.IdleGovernor != "menu" || f.IdleDriver != "intel_idle" || f.FreqGovernor != "performance" || f.FreqDriver != "intel_pstate" {
		t.Errorf("facts %+v", f)
	}
	if !f.SMT {
		t.Error("SMT off, though cores have two threads")
	}
	if !f.Isolated.Equal(NewCPUSet(2, 3)) || !f.NoHZFull.Equal(NewCPUSet(3)) {
		t.Errorf("isolated %v nohz_full %v, want 2-3 and 3", f.Isolated, f.NoHZFull)
	}
}

func TestReadCPUFactsBroken(t *testing.T) {
	if _, err := readCPUFacts(twoCoreSMT(map[string]string{"cpu/isolated": "2-x\n"})); err == nil {
		t.Error("a malformed isolated list read without error")
	}
	if _, err := readCPUFacts(fstest.MapFS{}); err == nil {
		t.Error("a tree without cpu/online read without error")
	}
}

func TestReadCPUFactsThisMachine(t *testing.T) {
	f, err := ReadCPUFacts()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", f)
}

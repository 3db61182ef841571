package affinity_test

import (
	"fmt"
	"os/exec"

	"github.com/hoplat/hoplat/affinity"
)

func ExampleParseList() {
	// CPU 0 is online on every machine; ParseList checks against this one's.
	cpus, err := affinity.ParseList(" 0 ; 0 ")
	fmt.Println(cpus, err)
	// Output:
	// 0 <nil>
}

func ExampleParseListFor() {
	online := affinity.NewCPUSet(0, 1, 2, 3, 4, 5, 6, 7, 8)
	cpus, err := affinity.ParseListFor("8; 0-3 ;2", online) // RonDB separators
	fmt.Println(cpus, cpus.Len(), err)

	_, err = affinity.ParseListFor("0-3,12", online)
	fmt.Println(err)
	// Output:
	// 0-3,8 5 <nil>
	// "0-3,12": CPU 12 not online (online 0-8)
}

func ExamplePlacement_For() {
	online := affinity.NewCPUSet(0, 1)
	spread, _ := affinity.ParsePlacement("spread", online)
	for _, c := range []string{"server", "relay2", "client", "relay"} {
		cpus, _ := spread.For(c)
		fmt.Println(c, cpus)
	}
	// Output:
	// server 0
	// relay2 1
	// client 0
	// relay 1
}

func ExampleStartOn() {
	cmd := exec.Command("true")
	affinity.NewGroup(cmd) // stoppable with everything it forks
	if err := affinity.StartOn(cmd, affinity.NewCPUSet(0)); err != nil {
		fmt.Println(err)
		return
	}
	cpus, _ := affinity.ProcessCPUs(cmd.Process.Pid) // may fail once it has exited
	fmt.Println(cpus, cmd.Wait())
}

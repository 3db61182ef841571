package machineline_test

import (
	"fmt"

	"github.com/hoplat/hoplat/present/machineline"
	"github.com/hoplat/hoplat/probe/machine"
)

// The line a report opens with, for a KVM guest in a container.
func ExampleLine() {
	m := machine.Machine{
		Virtualization: "kvm", Container: "docker",
		CPUIdle:  machine.CPUIdle{Governor: "haltpoll", Driver: "haltpoll"},
		Wake:     machine.WakeUS{SameCPU: 1.1, CrossCPU: 8.2},
		Leg:      machine.LegUS{TCP: 2.3, UNIX: 1.4},
		StealPct: 0.2,
	}
	fmt.Println(machineline.Line(m))
	// Output: machine: kvm (docker), cpuidle haltpoll/haltpoll; wake-up one way 1.1 µs same CPU, 8.2 µs cross CPU; loopback leg 2.3 µs tcp, 1.4 µs unix; steal 0.2%
}

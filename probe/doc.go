// Package probe measures, in a few seconds, the machine constants that
// explain what a hop costs: the one-way wake-up latency of a thread on the
// same CPU and on another CPU, and the one-way loopback TCP and UNIX
// kernel path on one CPU, together with the environment that decides them
// (cpuidle governor and driver, virtualization, steal time, cpufreq
// governor, SMT siblings, isolated CPUs).
//
// Each figure is a ping-pong between two threads pinned with affinity,
// repeated in interleaved rounds; a figure is the median of its rounds'
// medians, and the rounds are kept so that a reader sees their spread. A
// hop's added latency can then be split into wake-ups (count times the
// wake-up constant), kernel path (extra legs times the per-leg cost) and
// the relay's own code.
//
// It may import sockets, affinity, stats and probe/machine.
package probe

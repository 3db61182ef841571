// Package affinity places the threads of a measurement on chosen CPUs and
// reports where they really ran. It parses CPU lists and placement specs
// ("client=0 relay=1", "spread"), pins threads and processes with
// sched_setaffinity, reads the CPU topology from sysfs so a report can say
// whether two threads shared a core, and sets nice values and SCHED_FIFO.
package affinity

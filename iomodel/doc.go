// Package iomodel is how one end of a connection waits for the kernel:
// Go's netpoller, a blocking raw fd that keeps its OS thread and P, a
// busy-polled fd, or Auto, which picks blocking while the connections held
// at once fit the CPUs. Both ends share it: the load client (pingpong)
// dials under a Model, the responder adopts accepted connections under one.
//
// It imports sockets and affinity only.
package iomodel

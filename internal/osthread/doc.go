// Package osthread runs a function on an OS thread of its own, for work
// that changes state the kernel keeps per thread (a network namespace, a
// followed thread's id) and must not leak into the goroutines the runtime
// would run on that thread next. sockets dials inside a namespace this way
// and the tracer calibrates on a thread it follows.
//
// It is plumbing and imports only the standard library.
package osthread

// Package sockets turns socat-style addresses into listening and connected
// sockets with their options applied, and gives the raw, non-blocking file
// descriptors that event-loop engines and the blocking and spinning I/O models
// need. It owns the UNIX socket path lifecycle and reads TCP_INFO, and holds
// the one byte copier (Copy, with Polled for raw descriptors) that every relay
// copy loop goes through, interrupted system calls retried in one place.
//
// It is one of the two packages (with affinity) that talk to the kernel
// through golang.org/x/sys/unix; everything else goes through it.
//
// It imports golang.org/x/sys/unix and the standard library, none of hoplat's
// rooms.
package sockets

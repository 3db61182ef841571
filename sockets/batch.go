package sockets

// Batch makes the sends and receives of one wake-up of an event loop, on
// non-blocking stream sockets, in one system call: an io_uring whose every
// operation carries MSG_DONTWAIT, so that each one is tried at once, inside
// io_uring_enter, and completes there with what a recv(2) or send(2) with
// MSG_DONTWAIT would have returned (data, 0 at the end of the stream,
// EAGAIN), never parked to wait for readiness. The caller keeps waiting for
// readiness with epoll, as before; only the calls per message change.
//
// Why: under a hypervisor a system call's entry and exit can cost as much
// as the work it does (the tracer's BenchmarkSystemCallCost measures it;
// docs/measurements.md, "Batched calls"), and an epoll relay at many
// connections makes a recvfrom and a sendto per message; a
// wake-up that finds k sockets readable makes 2k calls where a Batch makes
// two io_uring_enter (one for the k receives, one for the k sends).
//
// A Batch belongs to one goroutine. Queue operations with Recv and Send,
// run them with Do, read each one's outcome with Result, and Reset before
// the next batch. The buffers handed to Recv and Send must stay untouched
// until Do returns; Do waits for every queued operation to complete.
//
// NewBatch fails where io_uring is missing or refused (a kernel before
// 5.18, kernel.io_uring_disabled, a seccomp filter, as in many containers),
// and the caller goes on with one call per message.
type Batch struct {
	batch
}

// BatchOp names one queued operation, for Result.
type BatchOp int

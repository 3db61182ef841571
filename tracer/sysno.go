package tracer

// callClass sorts a system call by what it does to a socket's stream.
type callClass uint8

const (
	callOther callClass = iota
	callSend            // write, writev, sendto, sendmsg, sendmmsg
	callRecv            // read, readv, recvfrom, recvmsg, recvmmsg
)

func classify(nr uint64) callClass {
	for _, n := range sendCalls {
		if nr == n {
			return callSend
		}
	}
	for _, n := range recvCalls {
		if nr == n {
			return callRecv
		}
	}
	return callOther
}

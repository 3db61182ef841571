package tracer

// System call numbers of arm64 (include/uapi/asm-generic/unistd.h).
const (
	sysRead    = 63
	sysWrite   = 64
	sysGetppid = 173
)

var (
	sendCalls = [...]uint64{sysWrite, 66 /* writev */, 206 /* sendto */, 211 /* sendmsg */, 269 /* sendmmsg */}
	recvCalls = [...]uint64{sysRead, 65 /* readv */, 207 /* recvfrom */, 212 /* recvmsg */, 243 /* recvmmsg */}
)

package tracer

// System call numbers of x86-64 (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	sysRead    = 0
	sysWrite   = 1
	sysGetppid = 110
)

var (
	sendCalls = [...]uint64{sysWrite, 20 /* writev */, 44 /* sendto */, 46 /* sendmsg */, 307 /* sendmmsg */}
	recvCalls = [...]uint64{sysRead, 19 /* readv */, 45 /* recvfrom */, 47 /* recvmsg */, 299 /* recvmmsg */}
)

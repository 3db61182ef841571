package mariadbtest

import "syscall"

// procAttr makes the kernel send mariadbd SIGTERM if the test process dies
// without running its cleanup (an interrupted go test), so no server is
// left behind holding a port.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

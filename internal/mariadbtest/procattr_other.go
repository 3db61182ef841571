//go:build !linux

package mariadbtest

import "syscall"

// procAttr has no parent-death signal outside Linux; Stop still ends the
// server on every normal path.
func procAttr() *syscall.SysProcAttr { return nil }

package sockets

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ListenerPID returns the process that holds the socket listening on a: a
// TCP address (the port, on that IP or the wildcard) or a UNIX path. It
// reads the kernel's socket tables (/proc/net/tcp, tcp6, unix) for the
// listening socket's inode, then each process's open files for it
// (/proc/PID/fd, proc(5)); a process whose files it may not read is passed
// over, so without root a server run by another user is not found.
// Several holders (a pre-forked server) give the lowest PID.
func ListenerPID(a Addr) (int, error) {
	var inodes []uint64
	if a.IsUnix() {
		table, err := os.ReadFile("/proc/net/unix")
		if err != nil {
			return 0, listenerError(a, err)
		}
		inodes = unixListeners(table, a.Path)
	} else {
		var ip net.IP
		if a.Host != "" && a.Host != "localhost" {
			if ip = net.ParseIP(a.Host); ip == nil {
				return 0, listenerError(a, &net.AddrError{Err: "not an IP literal", Addr: a.Host})
			}
		}
		for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			table, err := os.ReadFile(name)
			if err != nil {
				continue // no IPv6 in this kernel
			}
			inodes = append(inodes, tcpListeners(table, ip, a.Port)...)
		}
	}
	if len(inodes) == 0 {
		return 0, listenerError(a, ErrNoListener)
	}
	pid, ok := holder(inodes)
	if !ok {
		return 0, listenerError(a, ErrNoListener)
	}
	return pid, nil
}

// holder finds the lowest PID with an open file that is one of inodes'
// sockets ("socket:[INODE]", the link proc(5) gives a socket's fd).
func holder(inodes []uint64) (int, bool) {
	want := map[string]bool{}
	for _, in := range inodes {
		want["socket:["+strconv.FormatUint(in, 10)+"]"] = true
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	var pids []int
	for _, p := range procs {
		if pid, err := strconv.Atoi(p.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	for _, pid := range pids {
		dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(dir, fd.Name()))
			if err == nil && strings.HasPrefix(link, "socket:[") && want[link] {
				return pid, true
			}
		}
	}
	return 0, false
}

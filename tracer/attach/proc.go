package attach

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The target's failures that are the user's to fix, one line each.
var (
	ErrNoProcess = errors.New("attach: no such process")
	ErrNoSockets = errors.New("attach: no TCP or UNIX sockets")
)

// procRoot is /proc, a variable for tests.
var procRoot = "/proc"

// findPIDs returns pid if it runs, or every process whose comm is comm.
func findPIDs(pid int, comm string) ([]int, error) {
	if comm == "" {
		if _, err := os.Stat(filepath.Join(procRoot, strconv.Itoa(pid))); err != nil {
			return nil, fmt.Errorf("%w: %d (%s/%d does not exist)", ErrNoProcess, pid, procRoot, pid)
		}
		return []int{pid}, nil
	}
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "comm")); err == nil && strings.TrimSpace(string(b)) == comm {
			pids = append(pids, p)
		}
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("%w named %q", ErrNoProcess, comm)
	}
	return pids, nil
}

// fdInfo is what a process's fds say about its sockets.
type fdInfo struct {
	sockets map[uint64]bool // inodes
	sockmap bool            // a BPF sockmap or sockhash is open
}

// Map types of a kernel-forwarded proxy (include/uapi/linux/bpf.h).
const (
	mapTypeSockmap  = 15
	mapTypeSockhash = 18
)

func readFDs(pid int) fdInfo {
	info := fdInfo{sockets: map[uint64]bool{}}
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if rest, ok := strings.CutPrefix(link, "socket:["); ok {
			if ino, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64); err == nil {
				info.sockets[ino] = true
			}
			continue
		}
		if link == "anon_inode:bpf-map" {
			b, _ := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "fdinfo", e.Name()))
			for line := range strings.Lines(string(b)) {
				if v, ok := strings.CutPrefix(line, "map_type:"); ok {
					if t, _ := strconv.Atoi(strings.TrimSpace(v)); t == mapTypeSockmap || t == mapTypeSockhash {
						info.sockmap = true
					}
				}
			}
		}
	}
	return info
}

// listeningPorts returns the local ports of the listening TCP sockets
// among inodes (of the target's fds; nil: every one), from the network
// namespace's tables as pid sees them.
func listeningPorts(pid int, inodes map[uint64]bool) map[uint16]bool {
	ports := map[uint16]bool{}
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "net", table))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Scan() // the header
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			f := strings.Fields(sc.Text())
			if len(f) < 10 || f[3] != "0A" { // TCP_LISTEN
				continue
			}
			ino, err := strconv.ParseUint(f[9], 10, 64)
			if err != nil || (inodes != nil && !inodes[ino]) {
				continue
			}
			_, hexPort, ok := strings.Cut(f[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil {
				ports[uint16(p)] = true
			}
		}
	}
	return ports
}

func comm(pid int) string {
	b, _ := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b))
}

// strays returns the processes not in followed that are children of
// followed ones (their children too), or named comm if it is set: those
// that started while the fork hook was not attached (before the first
// window, between two).
func strays(followed map[int]bool, comm string) []int {
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	var named []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == os.Getpid() || followed[p] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		open := bytes.IndexByte(b, '(')
		if i < 0 || open < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		if comm != "" && string(b[open+1:i]) == comm {
			named = append(named, p)
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[p] = pp
		}
	}
	in := map[int]bool{}
	for _, p := range named {
		in[p] = true
	}
	for grew := true; grew; {
		grew = false
		for p, pp := range parent {
			if !in[p] && (followed[pp] || in[pp]) {
				in[p], grew = true, true
			}
		}
	}
	out := make([]int, 0, len(in))
	for p := range in {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// unixListening reports whether one of inodes (the target's sockets) is a
// listening UNIX socket: a line of the namespace's unix table whose flags
// hold __SO_ACCEPTCON (net/unix/af_unix.c's unix_seq_show).
func unixListening(pid int, inodes map[uint64]bool) bool {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "net", "unix"))
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Scan() // the header
	for sc.Scan() {
		// Num RefCount Protocol Flags Type St Inode Path
		f := strings.Fields(sc.Text())
		if len(f) < 7 {
			continue
		}
		flags, err1 := strconv.ParseUint(f[3], 16, 32)
		ino, err2 := strconv.ParseUint(f[6], 10, 64)
		if err1 == nil && err2 == nil && flags&soAcceptCon != 0 && inodes[ino] {
			return true
		}
	}
	return false
}

// soAcceptCon is __SO_ACCEPTCON (include/linux/net.h): a listening socket.
const soAcceptCon = 1 << 16

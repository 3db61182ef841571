package sockets

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ErrNoListener is returned by ListenerPID when no socket on this machine
// listens on the address, or none that a readable process holds.
var ErrNoListener = errors.New("no process here listens on it")

// tcpListeners returns the inodes of the sockets that a /proc/net/tcp or
// /proc/net/tcp6 table (proc(5)) lists in state LISTEN (0A) on port, bound
// to ip or to the wildcard address.
func tcpListeners(table []byte, ip net.IP, port int) []uint64 {
	// sl local_address rem_address st tx:rx tr:tm retrnsmt uid timeout inode
	return tableInodes(table, 9, func(f []string) bool {
		if f[3] != "0A" {
			return false
		}
		hostHex, portHex, ok := strings.Cut(f[1], ":")
		if !ok {
			return false
		}
		p, err := strconv.ParseUint(portHex, 16, 16)
		if err != nil || int(p) != port {
			return false
		}
		local, ok := procIP(hostHex)
		return ok && (local.IsUnspecified() || local.Equal(ip) || ip == nil)
	})
}

// tableInodes returns the inodes (column inode) of the rows of a
// /proc/net table that listening picks; a row too short to have the
// column is passed over. Rows it cannot read are skipped: the table is the
// kernel's, and one odd line must not hide the others.
func tableInodes(table []byte, inode int, listening func(f []string) bool) []uint64 {
	var inodes []uint64
	sc := bufio.NewScanner(bytes.NewReader(table))
	sc.Scan() // header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) <= inode || !listening(f) {
			continue
		}
		n, err := strconv.ParseUint(f[inode], 10, 64)
		if err != nil || n == 0 {
			continue
		}
		inodes = append(inodes, n)
	}
	return inodes
}

// procIP reads an address as /proc/net/tcp* prints it: the bytes of the
// address in network order, printed 32 bits at a time in host order
// (little-endian on the machines hoplat runs on).
func procIP(s string) (net.IP, bool) {
	b, err := hex.DecodeString(s)
	if err != nil || (len(b) != net.IPv4len && len(b) != net.IPv6len) {
		return nil, false
	}
	for i := 0; i+4 <= len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b), true
}

// unixListeners returns the inodes of the stream sockets that a
// /proc/net/unix table lists as listening (__SO_ACCEPTCON, 0x10000, in
// Flags) on path.
func unixListeners(table []byte, path string) []uint64 {
	// Num RefCount Protocol Flags Type St Inode Path
	return tableInodes(table, 6, func(f []string) bool {
		if len(f) < 8 || strings.Join(f[7:], " ") != path {
			return false
		}
		flags, err := strconv.ParseUint(f[3], 16, 32)
		return err == nil && flags&0x10000 != 0
	})
}

// IsLocal reports whether a names a server on this machine's own network
// stack: a UNIX socket, or a TCP address on loopback. (A server bound to
// one of the machine's other addresses is local too, but cannot be told
// from a remote one without asking the interfaces; ListenerPID answers
// that.)
func (a Addr) IsLocal() bool {
	if a.IsUnix() {
		return true
	}
	if a.Host == "localhost" {
		return true
	}
	ip := net.ParseIP(a.Host)
	return ip != nil && ip.IsLoopback()
}

func listenerError(a Addr, err error) error {
	return fmt.Errorf("sockets: the process listening on %s: %w", a, err)
}

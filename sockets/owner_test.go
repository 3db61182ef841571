package sockets

import (
	"net"
	"slices"
	"testing"
)

// Lines as Linux 6.x prints them (proc(5)); 0A is LISTEN, 01 ESTABLISHED.
const tcpTable = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:3402 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41001 1 0000000000000000 100 0 0 10 0
   1: 00000000:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41002 1 0000000000000000 100 0 0 10 0
   2: 0100007F:3402 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 41003 1 0000000000000000 20 4 30 10 -1
   3: 0200007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41004 1 0000000000000000 100 0 0 10 0
   garbage
`

const tcp6Table = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:0CEA 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 52001 1 0000000000000000 100 0 0 10 0
`

const unixTable = `Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 61001 /run/mysqld/mysqld.sock
0000000000000000: 00000003 00000000 00000000 0001 03 61002 /run/mysqld/mysqld.sock
0000000000000000: 00000002 00000000 00010000 0001 01 61003 /tmp/with space.sock
0000000000000000: 00000002 00000000 00010000 0001 01 61004
`

func TestTCPListeners(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		port int
		want []uint64
	}{
		{"127.0.0.1", 0x3402, []uint64{41001}}, // not the established one
		{"127.0.0.1", 0x0CEA, []uint64{41002}}, // wildcard bind
		{"127.0.0.2", 0x1F90, []uint64{41004}},
		{"127.0.0.1", 0x1F90, nil}, // another loopback address
		{"", 0x3402, []uint64{41001}},
		{"127.0.0.1", 1, nil},
	} {
		var ip net.IP
		if tc.ip != "" {
			ip = net.ParseIP(tc.ip)
		}
		if got := tcpListeners([]byte(tcpTable), ip, tc.port); !slices.Equal(got, tc.want) {
			t.Errorf("tcpListeners(%s, %d) = %v, want %v", tc.ip, tc.port, got, tc.want)
		}
	}
	if got := tcpListeners([]byte(tcp6Table), net.ParseIP("::1"), 0x0CEA); !slices.Equal(got, []uint64{52001}) {
		t.Errorf("tcp6 ::1 = %v, want [52001]", got)
	}
}

func TestUnixListeners(t *testing.T) {
	for path, want := range map[string][]uint64{
		"/run/mysqld/mysqld.sock": {61001}, // the connected one is not listening
		"/tmp/with space.sock":    {61003},
		"/nowhere":                nil,
	} {
		if got := unixListeners([]byte(unixTable), path); !slices.Equal(got, want) {
			t.Errorf("unixListeners(%q) = %v, want %v", path, got, want)
		}
	}
}

func FuzzSocketTables(f *testing.F) {
	f.Add([]byte(tcpTable), 0x3402)
	f.Add([]byte(tcp6Table), 0x0CEA)
	f.Add([]byte(unixTable), 0)
	f.Fuzz(func(t *testing.T, table []byte, port int) {
		for _, in := range tcpListeners(table, net.ParseIP("127.0.0.1"), port) {
			if in == 0 {
				t.Fatal("inode 0 returned")
			}
		}
		for _, in := range unixListeners(table, "/x") {
			if in == 0 {
				t.Fatal("inode 0 returned")
			}
		}
	})
}

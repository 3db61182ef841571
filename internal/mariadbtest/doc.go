// Package mariadbtest runs throwaway MariaDB servers for integration tests:
// a fresh datadir in a temp directory, a loopback TCP port and a UNIX socket,
// a native-password account and a sysbench table loaded by sysbench itself.
// One server per test process is shared (Shared), stopped from TestMain.
// A Pair is a primary with one replica on asynchronous replication, the
// table reaching the replica through the primary's binary log.
//
// It is test support: it imports internal/peer (and so testing), and only
// tests import it.
package mariadbtest

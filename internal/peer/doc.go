// Package peer finds the programs a test or benchmark runs beside hoplat's
// own code: optional peers (socat, HAProxy, sockperf, MariaDB, sysbench, the
// mariadb client) and hoplat's own binaries. A missing peer skips the test
// with the reason and the install hint, except when HOPLAT_REQUIRE_INTEGRATION
// is set (as CI does): then it fails.
//
// It imports testing, so only tests may import it; the binaries find their
// programs with internal/locate, which this package uses too.
package peer

// Package locate finds the programs hoplat's binaries start: hoplat's own
// (pongd, pingpong, hoprelay) next to the running executable, and peers
// (socat, HAProxy, MariaDB) on PATH or in the sbin directories.
//
// It is production code and must not import testing: the binaries link it.
// Tests find their peers with internal/peer, which adds skip-or-fail on top.
package locate

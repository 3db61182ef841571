// Package mysqltest is test support for the MySQL client and the mock: a
// server served on loopback TCP and a UNIX socket for one test, raw
// dials and the server's error an error carries.
// It imports neither the client nor the mock, so that their own tests may
// use it. Tests only.
package mysqltest

// Package mysqltest is test support for the MySQL client and the mock: a
// server served on loopback TCP and a UNIX socket for one test (the mock
// among them), raw dials and a client's dial, and the server's error an
// error carries. It imports neither the client nor the mock, so that
// their own tests may use it: StartMock takes the mock's constructor and
// Dial the client's Connect. Tests only.
package mysqltest

// Package tailbuf keeps the last bytes a child process wrote, so that an
// error about the process can quote what it said last (its stderr) without
// holding all of a long run's output. The driver and the hosts of a topology
// run both start processes and both report their stderr this way.
//
// It is plumbing and imports only the standard library.
package tailbuf

// Package porttest hands tests a loopback TCP port nothing listens on: to
// be refused at, or to give a child process to listen on. It imports only
// testing and net, so that every package's tests may use it. Tests only.
package porttest

// Package relay forwards byte streams between a listening address and an
// upstream, as socat does, with interchangeable engines: goroutines that let
// the runtime splice, epoll event loops on locked threads, and epoll with
// splice(2) through pipes. It also times its own work, so that a hop's
// latency can be split into the kernel's part and the relay's.
package relay

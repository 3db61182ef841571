// Package attach measures a proxy that is already running — HAProxy,
// nginx stream, socat and its forked children, hoprelay — from outside:
// how long each chunk of bytes stays in it, from its arrival on an inbound
// socket to the send of its last byte on the outbound one, matched by byte
// offsets, and where that time went (blocked, runnable, on CPU, softirq),
// through the tracer's ProxyHooks.
//
// Analyze, portable and pure, turns a window's events into Chunks; a
// Session finds the target's processes and sockets in /proc, runs the
// tracer in windows, and sums the chunks per Direction into a Report;
// Metrics exports them through prometheus/client_golang. The Report is
// structured data only: present.WriteAttach says it in words. It imports
// the tracer, the statistics leaf, affinity (the environment) and
// Prometheus, never present.
package attach

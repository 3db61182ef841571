// Package proxyconf writes the command lines and configuration of the
// proxies hoplat starts itself: hoprelay's (HopRelay) and HAProxy's, for
// the driver's paths and for the Galera cluster's balancers alike, so that
// both start a relay or a proxy one way and run the same set-up. Starting
// the process is hosts' (Start, Testbed.Start).
//
// It imports sockets (the addresses it writes) and roles (the engines),
// nothing else of hoplat's.
package proxyconf

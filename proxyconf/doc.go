// Package proxyconf writes the configuration of third-party proxies that
// hoplat starts itself: HAProxy's, for the driver's haproxy paths and for
// the Galera cluster's balancer alike, so that both run the same set-up.
//
// It imports sockets (the addresses it writes) and nothing else of hoplat's.
package proxyconf

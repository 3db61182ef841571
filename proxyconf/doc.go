// Package proxyconf writes the command lines and configuration of the
// proxies hoplat starts itself: hoprelay's (HopRelay) and HAProxy's, which
// the driver's components start for every path, hopbench galera's in
// front of a cluster's nodes included. Starting the process is hosts'
// (Start, Testbed.Start).
//
// It imports sockets (the addresses it writes) and roles (the engines),
// nothing else of hoplat's.
package proxyconf

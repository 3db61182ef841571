// Package hosts places hopbench's components on more than one host: this
// machine, network namespaces that it creates and joins with veth pairs (or
// a bridge), and other machines reached with the system's OpenSSH client.
//
// A topology file (ReadTopology) names the hosts, where each component runs
// and on which CPUs, and any of hopbench's settings, in the KEY=value style
// of RonDB's autobench.conf:
//
//	HOST_APP="netns:app"
//	HOST_DB="ssh://bench@172.31.31.222:2222"
//	CLIENT_HOST="app"
//	SERVER_HOST="db"
//	SERVER_CPUS="0-3"
//	THREAD_COUNTS_TO_RUN="1;2;4"
//	MAX_TIME=30
//
// Keys read here: TEST_NAME; HOST_<NAME>=local|netns:NAME|ssh://user@host[:port] and
// HOST_<NAME>_VIA=<netns host> (run the ssh client inside that namespace);
// <COMPONENT>_HOST and <COMPONENT>_CPUS for client, relay, server and
// backend (BENCHMARK_CPUS is CLIENT_CPUS); SSH_OPTIONS (extra ssh
// arguments), REMOTE_BIN (ship, path or a directory) and BACKEND_START (a
// command that starts the real backend on BACKEND_HOST for the run).
// SERVER_HOST may list several hosts, separated by ';' (TopologyFile.Servers).
// Values are bare, "double-quoted" or 'single-quoted'; lists take , or ;; a
// line starting with # is a comment, as is # after a value. Every other key
// is the caller's (Settings): hopbench's settings, one key per flag, are
// read by driver/settings, which hands them to ParseTopology.
//
// TopologyFile.Place says which host and CPUs each component has.
// Components not placed default to: the client on the first host (this
// machine when none is declared), the relay and server on the client's
// host, the backend on the server's.
//
// Up (or TopologyFile.Up) turns the hosts into a Testbed: each netns host
// becomes a namespace named hoplat-<pid>-<NAME> with loopback up and an
// interface hoplat0 addressed from 10.77.0.0/24 (the k-th netns host of the file, counting
// from 1, gets 10.77.0.k), a range used only inside these namespaces, so no
// address is added to this machine's own network. Two namespaces are joined
// by one veth pair; three or more by veths to a bridge in a namespace of its
// own, hoplat-<pid>--bridge. Each ssh host gets one ControlMaster connection
// and a temporary directory. Testbed.Address is what a component dials to
// reach a host; Testbed.Binary finds or ships hoplat's binaries there;
// Testbed.Start runs a component on a host, and Start on this machine
// without a testbed, each as a Process: forked from a locked thread that
// carries its CPUs and nice value, read for its readiness lines (or probed
// until it accepts), stopped by PID with its process group
// (TerminateGroup, KillGroup: signalling lives here) (Testbed.Argv
// gives the command line for a caller that runs a local or netns command
// itself, as the driver runs its load client); Testbed.Hosts describes
// the hosts for the report. Testbed.Close removes everything Up and Start
// made, and Up first removes what a killed earlier run left behind. Round
// trips are timed by the client alone, so nothing here compares two hosts'
// clocks.
//
// It may import sockets (addresses, dialling into a namespace) and
// affinity (CPU masks, nice values, process groups), and nothing above
// them.
package hosts

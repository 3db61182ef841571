// Package hop explains what each hop between a client and a server costs,
// from rounds a driver measured: it pairs every path's rounds with its
// direct baseline's (so drift between rounds cancels), fits the p50 of
// relay chains against their hop count, into the hoplat.hopbench.v1
// Report, and hands over what it found as data (Findings: kind, path,
// figures), which package present says in the report's verdicts. It runs
// nothing and prints nothing (package present writes the report): the
// figures come in as Series of Samples. It sits above probe and tracer: it imports the statistics leaf,
// probe/machine and tracer/split, and no client, relay or driver code.
package hop

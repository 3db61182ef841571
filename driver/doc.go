// Package driver runs hopbench, in four steps that its files follow: plan
// the matrix of paths, thread counts and backend settings (plan.go,
// path.go); build each stage's topology — a responder, relays in front of
// it, socat and HAProxy when installed — as separate OS processes
// (topology.go, components.go); run the load client over every path in
// interleaved rounds (bench.go, stage.go, pingpong.go); and collect the
// rounds' samples, and what the stage's observers (the relays' CPU and
// stats, kworkers, the responder's CPU, resource peaks) read as each round
// begins and ends, for analysis/hop, which explains what each hop adds and
// writes the report (results.go, relayrounds.go, kworkers.go,
// endpoints.go, resources.go). The tracer runs rounds of its own after a
// stage's (trace.go). hopbench galera's bench (galera.go) starts its
// proxies through the same Build, in front of a Galera cluster's nodes.
//
// It measures nothing itself: every figure comes from a pingpong process, so
// the driver's own scheduling never sits on a measured path.
//
// It composes no words for a person: what it does as it goes it hands as
// typed events (package driver/event) to Config.Progress, which package
// present says.
//
// It may import every room below it: sockets, affinity, roles, relay, probe
// and probe/machine, tracer, pingpong/report, stats, analysis/hop, hosts,
// cluster, proxyconf, internal/locate, internal/tailbuf and its own event
// types (driver/event, which present imports too). Only cmd/ imports it.
package driver

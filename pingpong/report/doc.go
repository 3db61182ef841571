// Package report turns pingpong's runs into figures: per thread count, the
// runs' tps series (package stats/series) and their merged latency
// histograms (package stats), in a Report, and the hoplat.pingpong.v1
// document's types a driver reads back. Measurement and presentation are
// kept apart: workers fill histograms, a Report collects them, and package
// present/load prints it (present/hgrm the .hgrm files).
//
// It sits on the client's side, below package pingpong, which fills it: it
// imports stats, stats/series and affinity (its Env), never pingpong.
package report

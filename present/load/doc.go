// Package load prints the load client's (pingpong's) report: the
// sysbench-like text, the hoplat.pingpong.v1 JSON and one CSV row per run,
// chosen by --format through ReporterFor. It only formats a report.Report
// (the runs turned into figures); it imports results, the statistics leaf
// and affinity (its Env), and present/hgrm writes the --hgrm files.
package load

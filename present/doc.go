// Package present is the presentation room: every output of a hopbench
// run goes out through it (text, --wide text, JSON, CSV, a workload
// sweep's and mysql-proxy's tables, the --out directory with its .hgrm
// files, plots and report.html) and so do hopbench compare's text and
// JSON, hopbench attach's report (WriteAttach), hopbench galera's table
// (WriteGalera) and the progress lines of a run (Progress, which says the
// driver's events), so that cmd/ only wires flags to it. It says the
// analysis's findings in sentences (Verdicts), which hopbench stores in
// the report, and fills the report's other sentences from the typed
// findings the analysis and the driver leave in it (Words) before any
// writer prints it. Its subpackages draw the figures (plot), the
// self-contained page (page), the machine line they share (machineline),
// and say the figures and sentences both share (phrase). It imports
// the analysis (analysis/hop, analysis/compare), the statistics leaf, the
// driver's events (driver/event) and the reports of tracer/attach and
// cluster as data; none of them imports it.
package present

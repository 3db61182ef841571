// Package page renders a hopbench run as one self-contained HTML page
// (report.html): inline SVG and CSS, no script, no font or image fetched,
// so that it opens from disk or from a mail attachment. Summary first: the
// machine and the placement, then per regime the path table with each
// hop's added p50 drawn as a stacked bar of its split, the latency
// spectrum of every path against its direct baseline, the sweeps beside
// their tables, the verdicts, and the command line, version and files of
// the run. The page is XHTML-compatible HTML5, readable without colour
// (patterns and labels on every bar) and from 400 px wide up. It is part
// of the presentation room: it imports the analysis (analysis/hop,
// analysis/compare) and the statistics leaf, never the driver.
package page

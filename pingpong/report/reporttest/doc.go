// Package reporttest is test support for pingpong's run report: a
// synthetic, deterministic run (Report) whose histograms come from a fixed
// generator, the same bytes on every machine, so that the reporters'
// golden files can hold the output. Tests only.
package reporttest

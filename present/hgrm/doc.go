// Package hgrm writes a latency histogram as HdrHistogram's .hgrm
// percentile distribution, byte for byte in the layout of Java's
// outputPercentileDistribution: the one .hgrm writer, for pingpong's
// --hgrm files and hopbench's --out alike. It imports the statistics leaf.
package hgrm

// Package split holds the traced split: a request's round trip summed by
// what it was made of (DESIGN.md's p50_split_us keys), the one type the
// tracer builds and the analysis and the reports read. It imports only the
// standard library, so that the tracer and analysis/hop both may.
package split

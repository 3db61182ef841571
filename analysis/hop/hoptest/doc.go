// Package hoptest checks hopbench's output against its contract, and builds
// fixed reports through the analysis (Synthetic, Sweep) and the rounds of
// one path (DirectRounds), for the
// tests of every package that writes or reads hoplat.hopbench.v1 (as
// net/http/httptest serves the tests of HTTP code). No binary links it.
//
// It may import analysis/hop, stats and affinity; only tests import
// it.
package hoptest

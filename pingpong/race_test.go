//go:build race

package pingpong_test

// race is set when the race detector, which adds its own bookkeeping to
// every allocation and syscall, is on.
const race = true

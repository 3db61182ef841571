//go:build !race

package pingpong_test

const race = false

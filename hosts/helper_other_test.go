//go:build !linux

package hosts

func runHelper() (int, bool) { return 0, false }

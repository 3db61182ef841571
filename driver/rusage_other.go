//go:build !linux

package driver

import "os"

// maxRSSKiB is 0 where ru_maxrss is not in KiB or not there: the report
// then leaves the client's peak out.
func maxRSSKiB(*os.ProcessState) int64 { return 0 }

package affinity

import "errors"

// ErrNotPermitted is wrapped by SetNice errors when the kernel
// refuses with EPERM or EACCES, so callers can skip rather than fail.
var ErrNotPermitted = errors.New("not permitted")

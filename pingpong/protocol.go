package pingpong

import (
	"errors"
	"io"
)

// Protocol starts client sessions on fresh connections. Open may run a
// handshake (a MySQL login); its time counts as connection set-up.
type Protocol interface {
	Open(rw io.ReadWriter, unix bool) (Session, error)
}

// Session is one client connection speaking a protocol. Event performs one
// request/response (for MySQL's oltp-ro, one transaction) and returns the
// statements it ran, 0 for a protocol without statements (echo), so that
// reports count queries only where there are some. It is the hot path: it
// must not allocate.
type Session interface {
	Event() (queries int, err error)
}

// Retrier is a Session that retries some failures itself, on the same
// connection, as sysbench's --mysql-ignore-errors restarts an event after a
// deadlock: Ignored returns how many failures it has retried since it
// opened and the last of them. The client counts each as an ignored error:
// an error of the run (Errors counts it too) that cost no reconnect, whose
// time stays in its event's latency.
type Retrier interface {
	Ignored() (n int64, last error)
}

// ErrBadReply marks a reply that arrived but was wrong: corrupted, for
// another request, duplicated or malformed. The client counts it as an error
// and reconnects, since the stream can no longer be trusted.
var ErrBadReply = errors.New("bad reply")
